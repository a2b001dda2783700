// Native.cs — every P/Invoke declaration of the binding, over libblendsync.so.0's exported C API
// (shared/include/blendsync/*.h, proto/include/blendsync/proto.h, client/include/blendsync/client.h,
// the _abi twins of blendsync/abi.h). Internal: the public types wrap these with ownership and
// exceptions. Pointers to opaque C objects are IntPtr; strings passed in are NUL-terminated UTF-8
// byte arrays (Utf8.Z), strings coming back are read with Utf8.Read.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    internal static unsafe class Native
    {
        // "blendsync" resolves to libblendsync.so (Linux; the build tree's libblendsync.so.0 through
        // LD_LIBRARY_PATH or Blendsync.dll.config), blendsync.dll (Windows), libblendsync.dylib (macOS).
        internal const string Lib = "blendsync";

        // ---- base.h
        [DllImport(Lib)] internal static extern IntPtr bsync_result_string(int r);
        [DllImport(Lib)] internal static extern uint bsync_version();
        [DllImport(Lib)] internal static extern IntPtr bsync_version_string();

        // ---- fixed.h (conversions) and abi.h (twins of the inline arithmetic)
        [DllImport(Lib)] internal static extern int bsync_fx_parse(byte* text, UIntPtr len, int* output);
        [DllImport(Lib)] internal static extern UIntPtr bsync_fx_format(int v, byte* buf, UIntPtr cap);
        [DllImport(Lib)] internal static extern int bsync_fx_from_double(double v, int* output);
        [DllImport(Lib)] internal static extern double bsync_fx_to_double_abi(int v);
        [DllImport(Lib)] internal static extern int bsync_fx_add_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_sub_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_mul_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_div_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_sqrt_abi(int x);
        [DllImport(Lib)] internal static extern int bsync_fx_lerp_abi(int a, int b, int t);
        [DllImport(Lib)] internal static extern int bsync_fx_neg_abi(int a);
        [DllImport(Lib)] internal static extern int bsync_fx_abs_abi(int a);
        [DllImport(Lib)] internal static extern int bsync_fx_min_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_max_abi(int a, int b);
        [DllImport(Lib)] internal static extern int bsync_fx_clamp_abi(int x, int lo, int hi);
        [DllImport(Lib)] internal static extern int bsync_fx_from_int_abi(int i);
        [DllImport(Lib)] internal static extern Vec3 bsync_quat_rotate_abi(Quat q, Vec3 v);
        [DllImport(Lib)] internal static extern Quat bsync_quat_mul_abi(Quat a, Quat b);
        [DllImport(Lib)] internal static extern Quat bsync_quat_nlerp_abi(Quat a, Quat b, int t);
        [DllImport(Lib)] internal static extern Trs bsync_trs_compose_abi(Trs* parent, Trs* local);

        // ---- checksum.h
        [DllImport(Lib)] internal static extern void bsync_checksum_init(ChecksumState* s, ulong seed);
        [DllImport(Lib)] internal static extern void bsync_checksum_bytes(ChecksumState* s, void* data, UIntPtr len);
        [DllImport(Lib)] internal static extern ulong bsync_checksum_final(ChecksumState* s);
        [DllImport(Lib)] internal static extern void bsync_checksum_u32(ChecksumState* s, uint v);
        [DllImport(Lib)] internal static extern void bsync_checksum_u64(ChecksumState* s, ulong v);
        [DllImport(Lib)] internal static extern ulong bsync_checksum_xxh64(void* data, UIntPtr len, ulong seed);
        [DllImport(Lib)] internal static extern ulong bsync_checksum_pose(Trs* pose, uint jointCount);

        // ---- io/config.h (a blend tree from text) and blend_tree.h accessors
        [DllImport(Lib)] internal static extern int bsync_config_parse(byte* text, UIntPtr len, byte[] name, IntPtr allocator,
                                                                       out IntPtr tree, IntPtr diags, Error* err);
        [DllImport(Lib)] internal static extern void bsync_blend_tree_destroy(IntPtr tree);
        [DllImport(Lib)] internal static extern uint bsync_blend_tree_parameter_count(IntPtr tree);
        [DllImport(Lib)] internal static extern IntPtr bsync_blend_tree_parameter_name(IntPtr tree, uint i);
        [DllImport(Lib)] internal static extern int bsync_blend_tree_parameter_default(IntPtr tree, uint i);
        [DllImport(Lib)] internal static extern int bsync_blend_tree_find_parameter(IntPtr tree, byte[] name, out uint index);
        [DllImport(Lib)] internal static extern uint bsync_blend_tree_motion_count(IntPtr tree);
        [DllImport(Lib)] internal static extern IntPtr bsync_blend_tree_motion_name(IntPtr tree, uint i);
        [DllImport(Lib)] internal static extern uint bsync_blend_tree_node_count(IntPtr tree);
        [DllImport(Lib)] internal static extern uint bsync_blend_tree_root(IntPtr tree);
        [DllImport(Lib)] internal static extern IntPtr bsync_blend_tree_node_name(IntPtr tree, uint node);
        [DllImport(Lib)] internal static extern int bsync_blend_tree_find_node(IntPtr tree, byte[] name, out uint index);
        [DllImport(Lib)] internal static extern uint bsync_blend_tree_node_child_count(IntPtr tree, uint node);
        [DllImport(Lib)] internal static extern ChildRef bsync_blend_tree_node_child(IntPtr tree, uint node, uint child);
        [DllImport(Lib)] internal static extern int bsync_blend_tree_eval_node(IntPtr tree, uint node, int* parameters, int* weights);

        // ---- io/graph_config.h and graph.h
        [DllImport(Lib)] internal static extern int bsync_graph_config_load(byte[] path, IntPtr allocator, out IntPtr config,
                                                                            IntPtr diags, Error* err);
        [DllImport(Lib)] internal static extern void bsync_graph_config_destroy(IntPtr config);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_config_graph(IntPtr config);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_config_tree(IntPtr config);
        [DllImport(Lib)] internal static extern uint bsync_graph_config_bound_clip_count(IntPtr config);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_config_notes(IntPtr config);
        [DllImport(Lib)] internal static extern ulong bsync_graph_hash(IntPtr graph);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_tree(IntPtr graph);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_skeleton(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_tick_rate(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_parameter_count(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_motion_count(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_node_count(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_joint_count(IntPtr graph);
        [DllImport(Lib)] internal static extern int bsync_graph_find_joint(IntPtr graph, byte[] name, out uint index);
        [DllImport(Lib)] internal static extern int bsync_graph_root_motion(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_switch_count(IntPtr graph);
        [DllImport(Lib)] internal static extern int bsync_graph_pose_rule(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_switch_node(IntPtr graph, uint sw);
        [DllImport(Lib)] internal static extern uint bsync_graph_motion_one_shot(IntPtr graph, uint motion);
        [DllImport(Lib)] internal static extern uint bsync_graph_action_count(IntPtr graph);
        [DllImport(Lib)] internal static extern uint bsync_graph_curve_channel_count(IntPtr graph);
        [DllImport(Lib)] internal static extern IntPtr bsync_graph_curve_channel_name(IntPtr graph, uint channel);
        [DllImport(Lib)] internal static extern int bsync_graph_find_curve(IntPtr graph, byte[] name, out uint channel);
        [DllImport(Lib)] internal static extern int bsync_graph_action(IntPtr graph, uint i, GraphActionDesc* output);
        [DllImport(Lib)] internal static extern IntPtr bsync_skeleton_joint_name(IntPtr skeleton, uint joint);
        [DllImport(Lib)] internal static extern int bsync_skeleton_parent(IntPtr skeleton, uint joint);

        // ---- instance.h
        [DllImport(Lib)] internal static extern UIntPtr bsync_instance_memory_size(IntPtr graph);
        [DllImport(Lib)] internal static extern int bsync_instance_init(IntPtr mem, UIntPtr size, IntPtr graph, out IntPtr inst);
        [DllImport(Lib)] internal static extern int bsync_instance_tick(IntPtr inst, InstanceInput* input);
        [DllImport(Lib)] internal static extern int bsync_instance_tick_ex(IntPtr inst, InstanceInput* input, SwitchTrigger* triggers,
                                                                           uint count);
        [DllImport(Lib)] internal static extern int bsync_instance_switch_state(IntPtr inst, uint sw, SwitchEntry* output, out uint count);
        [DllImport(Lib)] internal static extern int bsync_instance_actions(IntPtr inst, out ActionReport* reports, out uint count);
        [DllImport(Lib)] internal static extern int bsync_instance_curve(IntPtr inst, uint channel, out int value);
        [DllImport(Lib)] internal static extern int bsync_instance_motion_time(IntPtr inst, uint node, uint child, MotionTime* output);
        [DllImport(Lib)] internal static extern ulong bsync_instance_tick_count(IntPtr inst);
        [DllImport(Lib)] internal static extern int bsync_instance_parameter(IntPtr inst, uint param);
        [DllImport(Lib)] internal static extern int bsync_instance_target(IntPtr inst, uint param);
        [DllImport(Lib)] internal static extern int* bsync_instance_leaf_weights(IntPtr inst);
        [DllImport(Lib)] internal static extern int* bsync_instance_node_weights(IntPtr inst, uint node);
        [DllImport(Lib)] internal static extern int bsync_instance_node_phase(IntPtr inst, uint node);
        [DllImport(Lib)] internal static extern int bsync_instance_root_motion(IntPtr inst, RootMotion* output);
        [DllImport(Lib)] internal static extern ulong bsync_instance_state_checksum(IntPtr inst);
        [DllImport(Lib)] internal static extern int bsync_instance_pose_checksum(IntPtr inst, ulong* output, ulong* perJoint);
        [DllImport(Lib)] internal static extern int bsync_instance_pose(IntPtr inst, Trs* local, Trs* model);
        [DllImport(Lib)] internal static extern int bsync_instance_joint_query(IntPtr inst, uint* joints, uint count, Trs* model);
        [DllImport(Lib)] internal static extern UIntPtr bsync_instance_snapshot_size_max(IntPtr graph);
        [DllImport(Lib)] internal static extern int bsync_instance_save(IntPtr inst, byte* buf, UIntPtr cap, out UIntPtr written);
        [DllImport(Lib)] internal static extern int bsync_instance_load(IntPtr inst, byte* buf, UIntPtr len);

        // ---- present.h (floats for rendering)
        [DllImport(Lib)] internal static extern void bsync_present_to_float(Trs* input, uint count, TrsF* output);
        [DllImport(Lib)] internal static extern UIntPtr bsync_present_scratch_size(IntPtr graph);
        [DllImport(Lib)] internal static extern int bsync_present_pose(IntPtr inst, int alpha, IntPtr scratch, UIntPtr scratchSize,
                                                                       Trs* local, Trs* model, RootMotion* root);

        // ---- io/match_config.h and match.h
        [DllImport(Lib)] internal static extern int bsync_match_config_load(byte[] path, IntPtr allocator, out IntPtr cfg, Error* err);
        [DllImport(Lib)] internal static extern int bsync_match_config_parse(byte* text, UIntPtr len, byte[] name, byte[] baseDir,
                                                                             IntPtr allocator, out IntPtr cfg, Error* err);
        [DllImport(Lib)] internal static extern void bsync_match_config_destroy(IntPtr cfg);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_desc(IntPtr cfg);
        [DllImport(Lib)] internal static extern ulong bsync_match_config_match_id(IntPtr cfg);
        [DllImport(Lib)] internal static extern uint bsync_match_config_player_count(IntPtr cfg);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_token(IntPtr cfg, uint slot, out UIntPtr len);
        [DllImport(Lib)] internal static extern int bsync_match_config_secret(IntPtr cfg, uint slot, IntPtr out32);
        [DllImport(Lib)] internal static extern int bsync_match_config_session(IntPtr cfg);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_param_name(IntPtr cfg, uint i);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_trigger_name(IntPtr cfg, uint j);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_character_name(IntPtr cfg, uint c);
        [DllImport(Lib)] internal static extern uint bsync_match_config_character_slot(IntPtr cfg, uint c);
        [DllImport(Lib)] internal static extern uint bsync_match_config_input_delay(IntPtr cfg);
        [DllImport(Lib)] internal static extern uint bsync_match_config_checksum_interval(IntPtr cfg);
        [DllImport(Lib)] internal static extern uint bsync_match_config_duration_ticks(IntPtr cfg);
        [DllImport(Lib)] internal static extern uint bsync_match_config_tick_rate(IntPtr cfg);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_character_graph(IntPtr cfg, uint c);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_config_notes(IntPtr cfg);
        [DllImport(Lib)] internal static extern void bsync_match_config_replay_header(IntPtr cfg, byte[] buildVersion, uint startTick,
                                                                                      IntPtr header);
        [DllImport(Lib)] internal static extern ulong bsync_match_hash(IntPtr desc);
        [DllImport(Lib)] internal static extern UIntPtr bsync_match_memory_size(IntPtr desc);
        [DllImport(Lib)] internal static extern int bsync_match_init(IntPtr mem, UIntPtr size, IntPtr desc, out IntPtr match);
        [DllImport(Lib)] internal static extern int bsync_match_tick(IntPtr match, MatchFrame* frame);
        [DllImport(Lib)] internal static extern ulong bsync_match_tick_count(IntPtr match);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_get_desc(IntPtr match);
        [DllImport(Lib)] internal static extern uint bsync_match_character_count(IntPtr match);
        [DllImport(Lib)] internal static extern IntPtr bsync_match_instance(IntPtr match, uint character);
        [DllImport(Lib)] internal static extern int bsync_match_get_checksums(IntPtr match, int withPoses, MatchChecksums* output);
        [DllImport(Lib)] internal static extern int bsync_match_joint_checksums(IntPtr match, uint character, ulong* output, uint cap,
                                                                                out uint count);
        [DllImport(Lib)] internal static extern UIntPtr bsync_match_snapshot_size(IntPtr match);
        [DllImport(Lib)] internal static extern UIntPtr bsync_match_snapshot_size_max(IntPtr match);
        [DllImport(Lib)] internal static extern int bsync_match_save(IntPtr match, byte* buf, UIntPtr cap, out UIntPtr written);
        [DllImport(Lib)] internal static extern int bsync_match_load(IntPtr match, byte* buf, UIntPtr len);
        [DllImport(Lib)] internal static extern void bsync_match_script_init(MatchScript* script, ulong seed);
        [DllImport(Lib)] internal static extern void bsync_match_random_input(MatchScript* script, IntPtr desc, MatchInput* output);

        // ---- io/script.h (graph scripts: EvalScript; input scripts: BotScript)
        [DllImport(Lib)] internal static extern int bsync_script_parse(byte* text, UIntPtr len, byte[] name, IntPtr graph,
                                                                       IntPtr allocator, out IntPtr script, Error* err);
        [DllImport(Lib)] internal static extern int bsync_script_load(byte[] path, IntPtr graph, IntPtr allocator, out IntPtr script,
                                                                      Error* err);
        [DllImport(Lib)] internal static extern int bsync_script_parse_inputs(byte* text, UIntPtr len, byte[] name, IntPtr config,
                                                                              IntPtr allocator, out IntPtr script, Error* err);
        [DllImport(Lib)] internal static extern int bsync_script_load_inputs(byte[] path, IntPtr config, IntPtr allocator,
                                                                             out IntPtr script, Error* err);
        [DllImport(Lib)] internal static extern void bsync_script_destroy(IntPtr script);
        [DllImport(Lib)] internal static extern UIntPtr bsync_script_row_count(IntPtr script);
        [DllImport(Lib)] internal static extern ulong bsync_script_row_tick(IntPtr script, UIntPtr row);
        [DllImport(Lib)] internal static extern uint bsync_script_apply(IntPtr script, UIntPtr* row, ulong tick, Fix16* targets,
                                                                        SwitchTrigger* triggers);
        [DllImport(Lib)] internal static extern void bsync_script_input(IntPtr script, ulong tick, MatchInput* input);
        [DllImport(Lib)] internal static extern uint bsync_script_play_column_count(IntPtr script);

        // ---- io/replay.h (reading)
        [DllImport(Lib)] internal static extern int bsync_replay_reader_open_file(byte[] path, out IntPtr reader, Error* err);
        [DllImport(Lib)] internal static extern int bsync_replay_reader_open_memory(byte* data, UIntPtr len, out IntPtr reader);
        [DllImport(Lib)] internal static extern int bsync_replay_reader_next(IntPtr reader, IntPtr record, byte* detail, UIntPtr cap);
        [DllImport(Lib)] internal static extern IntPtr bsync_replay_reader_header(IntPtr reader);
        [DllImport(Lib)] internal static extern ulong bsync_replay_reader_valid_bytes(IntPtr reader);
        [DllImport(Lib)] internal static extern void bsync_replay_reader_close(IntPtr reader);
        [DllImport(Lib)] internal static extern IntPtr bsync_replay_status_string(int status);
        // ---- io/replay_verify.h
        [DllImport(Lib)] internal static extern int bsync_replay_verify_file(byte[] path, ReplayVerifyOptionsNative* options, byte* result);
        [DllImport(Lib)] internal static extern int bsync_replay_verify_memory(byte* data, UIntPtr len, ReplayVerifyOptionsNative* options,
                                                                               byte* result);
        [DllImport(Lib)] internal static extern void bsync_replay_verify_result_destroy(byte* result);

        // ---- proto.h strings, net.h helpers
        [DllImport(Lib)] internal static extern IntPtr bsync_proto_bye_reason_string(uint reason);
        [DllImport(Lib)] internal static extern IntPtr bsync_proto_desync_kind_string(uint kind);
        [DllImport(Lib)] internal static extern IntPtr bsync_proto_action_string(uint action);
        [DllImport(Lib)] internal static extern ulong bsync_net_now_us();
        [DllImport(Lib)] internal static extern int bsync_net_parse_address(byte[] text, byte* host, UIntPtr cap, out ushort port);

        // ---- client.h
        [DllImport(Lib)] internal static extern int bsync_client_create(ClientConfigNative* config, out IntPtr client, Error* err);
        [DllImport(Lib)] internal static extern void bsync_client_destroy(IntPtr client);
        [DllImport(Lib)] internal static extern int bsync_client_service(IntPtr client, uint timeoutMs);
        [DllImport(Lib)] internal static extern int bsync_client_send_input(IntPtr client, MatchInput* input, out uint assigned);
        [DllImport(Lib)] internal static extern int bsync_client_poll_event(IntPtr client, ClientEvent* output);
        [DllImport(Lib)] internal static extern int bsync_client_get_state(IntPtr client);
        [DllImport(Lib)] internal static extern IntPtr bsync_client_match(IntPtr client);
        [DllImport(Lib)] internal static extern void bsync_client_set_frame_hook(IntPtr client, IntPtr hook, IntPtr user);
        [DllImport(Lib)] internal static extern void bsync_client_get_stats(IntPtr client, ClientStats* output);
        [DllImport(Lib)] internal static extern uint bsync_client_tick_rate(IntPtr client);
        [DllImport(Lib)] internal static extern uint bsync_client_input_delay(IntPtr client);
        [DllImport(Lib)] internal static extern int bsync_client_present_alpha(IntPtr client);
        // ---- client_predict.h
        [DllImport(Lib)] internal static extern IntPtr bsync_client_predict_match(IntPtr client);
        [DllImport(Lib)] internal static extern uint bsync_client_predict_tick(IntPtr client);
        [DllImport(Lib)] internal static extern void bsync_client_predict_get_stats(IntPtr client, ClientPredictStats* output);
        [DllImport(Lib)] internal static extern uint bsync_client_predict_depth_quantile(ClientPredictStats* stats, uint permille);
        [DllImport(Lib)] internal static extern int bsync_client_predict_alpha(IntPtr client);
        [DllImport(Lib)] internal static extern int bsync_client_predict_present(IntPtr client, int alpha, ulong frameNs, IntPtr scratch,
                                                                                UIntPtr scratchSize, Trs* outLocal, RootMotion* outRoot);
        [DllImport(Lib)] internal static extern UIntPtr bsync_present_match_scratch_size(IntPtr match);
        [DllImport(Lib)] internal static extern uint bsync_present_match_joint_count(IntPtr match);
    }

    // UTF-8 helpers for the C strings (no per-tick use).
    internal static unsafe class Utf8
    {
        internal static byte[] Z(string s)
        {
            if (s == null) return null;
            int n = System.Text.Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            System.Text.Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }
        internal static string Read(IntPtr p)
        {
            if (p == IntPtr.Zero) return null;
            byte* b = (byte*)p;
            int n = 0;
            while (b[n] != 0) n++;
            return new string((sbyte*)b, 0, n, System.Text.Encoding.UTF8);
        }
        internal static string Read(byte* b, int cap)
        {
            int n = 0;
            while (n < cap && b[n] != 0) n++;
            return new string((sbyte*)b, 0, n, System.Text.Encoding.UTF8);
        }
    }
}
