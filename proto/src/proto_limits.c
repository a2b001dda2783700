/* proto_limits.c — the limits the wire protocol shares with the match and its config, tied at
 * compile time. A match that the library accepts must fit the wire, and the wire must carry nothing
 * the match would refuse; so each pair is equal, and a change to one side breaks the build here
 * instead of a match at run time. (The headers cannot hold these: C++ has no _Static_assert.) */
#include "blendsync/graph.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "blendsync/proto.h"

_Static_assert(BSYNC_MATCH_MAX_PLAYERS == BSYNC_PROTO_MAX_PLAYERS, "match.h and proto.h: players per match");
_Static_assert(BSYNC_MATCH_MAX_PARAMS == BSYNC_PROTO_MAX_PARAMS, "match.h and proto.h: parameters per player");
_Static_assert(BSYNC_MATCH_MAX_TRIGGERS == BSYNC_PROTO_MAX_TRIGGERS, "match.h and proto.h: triggers per player");
_Static_assert(BSYNC_MATCH_MAX_CHARACTERS == BSYNC_PROTO_MAX_CHARACTERS, "match.h and proto.h: characters per match");
_Static_assert(BSYNC_MAX_JOINTS == BSYNC_PROTO_MAX_JOINTS, "base.h and proto.h: joints per checksum");
_Static_assert(BSYNC_MATCH_CONFIG_MAX_TOKEN == BSYNC_PROTO_MAX_TOKEN, "match_config.h and proto.h: token bytes");
_Static_assert(BSYNC_MATCH_CONFIG_MAX_PAYLOAD == BSYNC_PROTO_MAX_PAYLOAD, "match_config.h and proto.h: payload bytes");
_Static_assert(BSYNC_MATCH_CONFIG_MAX_INPUT_DELAY == BSYNC_PROTO_MAX_INPUT_DELAY, "match_config.h and proto.h: input delay");
_Static_assert(BSYNC_MATCH_CONFIG_MAX_CHECKSUM_INTERVAL == BSYNC_PROTO_MAX_CHECKSUM_INTERVAL,
               "match_config.h and proto.h: checksum interval");
/* a match's rate is its graphs' rate, and the wire (WELCOME) carries it */
_Static_assert(BSYNC_GRAPH_MIN_TICK_RATE == BSYNC_PROTO_MIN_TICK_RATE, "graph.h and proto.h: lowest tick rate");
_Static_assert(BSYNC_GRAPH_MAX_TICK_RATE == BSYNC_PROTO_MAX_TICK_RATE, "graph.h and proto.h: highest tick rate");
/* and both lie inside what the time and smoothing code accept */
_Static_assert(BSYNC_GRAPH_MIN_TICK_RATE >= BSYNC_MIN_TICK_RATE && BSYNC_GRAPH_MAX_TICK_RATE <= BSYNC_MAX_TICK_RATE,
               "graph.h tick rates inside base.h's");
