/* commands.h — the subcommands of the `blendsync` tool; one cmd_<name>.c each. */
#ifndef BLENDSYNC_CLI_COMMANDS_H
#define BLENDSYNC_CLI_COMMANDS_H

/* Each returns the process exit status: 0 success, 1 a finding (mismatch, warning), 2 an error. */
int bsync_cmd_demo(int argc, char** argv);
int bsync_cmd_demo_data(int argc, char** argv); /* `demo --data DIR` (main.c routes it) */
int bsync_cmd_weights(int argc, char** argv);
int bsync_cmd_plot(int argc, char** argv);
int bsync_cmd_import(int argc, char** argv);
int bsync_cmd_eval(int argc, char** argv);
int bsync_cmd_validate(int argc, char** argv);
int bsync_cmd_bake(int argc, char** argv);
int bsync_cmd_bot(int argc, char** argv);
int bsync_cmd_replay_record(int argc, char** argv); /* `replay record` (cmd_replay.c dispatches) */
int bsync_cmd_replay(int argc, char** argv);
int bsync_cmd_desync(int argc, char** argv);
int bsync_cmd_synctest(int argc, char** argv);
int bsync_cmd_bench(int argc, char** argv);
int bsync_cmd_studio(int argc, char** argv); /* cmd_studio.c: with libmicrohttpd only */
int bsync_cmd_match(int argc, char** argv);  /* cmd_match.c: with libcurl only */

/* BSYNC_SIMD from the environment (simd_env.c): 0, or -1 after a message naming `program` (exit 2). */
int bsync_cli_apply_simd_env(const char* program);

#endif
