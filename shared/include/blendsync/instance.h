/* blendsync/instance.h — one character's blend state over a graph: tick, blend state, pose, snapshots.
 *
 * Index
 *   bsync_instance_memory_size / _init        the instance in caller memory (8-byte aligned)
 *   bsync_instance_input, bsync_instance_tick  advance exactly one tick
 *   bsync_switch_trigger, bsync_instance_tick_ex   the same with switch triggers ("Switches" below)
 *   bsync_instance_switch_state                the cross-fade stack of a switch
 *   bsync_instance_inertia_state, _inertia_joint, _inertia_decay, _inertia_curve   inertialized switches
 *                                                                ("Inertialization")
 *   blend state   _tick_count _parameter _target _parameter_state _leaf_weights _node_weights
 *                 _node_time _node_phase _node_sample_phase _node_length
 *   root motion   _root_motion (the last tick's delta; see "Root motion" below)
 *   checksums     _state_checksum _parameter_checksum _node_checksum _pose_checksum
 *   pose          _pose (local, and model on request)  _joint_query (model transforms of chosen joints)
 *   snapshots     _save _load  _snapshot_size _snapshot_size_max _snapshot_size_now
 *
 * State (what a snapshot holds and the state checksum covers): the tick counter, per parameter its
 * last target and its filter state (param.h), every node's own phase clock and every clock of a motion
 * child of a BSYNC_SYNC_NONE node (time.h positions on a normalised 1-second cycle for nodes; on the
 * clip's own duration for those motion clocks). Everything else is derived from it: filtered
 * parameter values, node child weights (recomputed only for a node whose filtered parameters changed:
 * the dirty flag), flattened leaf weights, cycle lengths, phase steps; and caches that never affect a
 * result: sample cursors and pose scratch. The instance is plain data with offsets only (no pointers
 * but the one to its graph), so memcpy of its memory_size bytes is a working copy for the same graph.
 *
 * One tick (bsync_instance_tick), in order:
 *   1. each parameter's filter steps toward its target (a pair with bsync_param_filter_step2 on the
 *      pair's first parameter's state; the second parameter's state stays zero) and reports a change;
 *   2. each node with a changed parameter re-evaluates its child weights (bsync_blend_tree_eval_node);
 *   3. if any node changed: masses and leaf weights are flattened exactly as bsync_blend_tree_eval_leaves
 *      does from the root (so the leaf weights equal it bit for bit), and every node's cycle length is
 *      recomputed bottom-up: L_N = sum over children with w_i > 0 of round(min(w_i, 64) * L_i / time_scale_i),
 *      in raw fix16 steps, saturated (see graph.h for L_i); then the node's phase step is
 *      bsync_time_step_init(1.0, speed, tick_rate) with speed = bsync_fx_div(own_scale, L_N), so the carry
 *      is exact (its denominator is tick_rate * 65536 whatever the speed); L_N == 0 gives speed 0;
 *   4. every node's phase advances one step (zero-weight subtrees too), and every NONE motion clock
 *      advances by bsync_time_step_init(duration, time_scale, tick_rate) (constant; a motion without
 *      clip data, or of duration 0, counts with duration 1.0 s);
 *   5. the tick counter increments;
 *   6. with root motion EXTRACT, the root-motion delta of this tick is computed (below).
 * init starts every parameter at rest on its tree default (bsync_param_state_init), all clocks at
 * zero, tick 0, and computes the derived state, so the blend state is valid before the first tick.
 *
 * Sampling (pose): every motion child slot whose flattened contribution (mass of its node * weight) is
 * > 0 and that has a clip is sampled (with its own cursor) at seconds = bsync_time_seconds(phase,
 * duration, WRAP) where phase = the node's sampling phase (graph.h) + the slot's cycle offset (a NONE
 * node: the slot's own clock's phase + offset); the samples are blended by bsync_pose_blend with the
 * contributions (capped at 64.0) as weights, so the weight of motions without clip data goes to the
 * rest pose (the blend's remainder rule). Zero-weight slots are never sampled. The model pose, when
 * asked, is bsync_pose_local_to_model of the result. A joint query computes the same blended local pose
 * (clips sample every joint) and then composes only the ancestor chains of the joints asked for,
 * bit-identical to the full model pose for those joints.
 *
 * Layers (graph.h, bsync_graph_create_layered). After the base pose above is blended, each layer i in
 * order, with weight w (FIXED: the desc's weight; PARAM: the filtered parameter clamped to [0, 1], the
 * same value bsync_instance_parameter reports) and mask table m (graph.h):
 *   w == 0: skipped (nothing sampled, the pose unchanged bit for bit);
 *   else the layer pose is formed like the base pose but flattened from the layer's node with mass 1.0
 *   (its slots sampled at the same sampling phases, the remainder to the rest pose), and, with P the
 *   current pose and a_j = bsync_fx_mul(w, m[j]) (a_j = w without a mask):
 *   OVERRIDE  P' = bsync_pose_blend(rest, [{P, 1.0, joint weights 1 - a_j}, {layer, w, m}]) (without a
 *             mask [{P, 1 - w}, {layer, w}]): the two per-joint weights sum to 1.0 exactly, so per joint
 *             t' = round((1 - a_j) t_P + a_j t_L) (one rounding, ties away from zero; scale the same),
 *             r' = the normalised (1 - a_j) r_P + a_j r_L (r_L aligned to r_P's hemisphere); a_j = 0 keeps
 *             P's joint bit for bit and a_j = 1 copies the layer's joint bit for bit;
 *   ADDITIVE  P' = bsync_pose_blend_additive(P, layer, skeleton rest pose, w, m or NULL): the layer's
 *             difference from the rest pose, scaled by a_j, added to P (pose.h).
 * Then the root-motion pose rule below is applied to the final pose. Root motion itself (the delta)
 * comes from the base only. Layers add no state: no snapshot or state-checksum change (a PARAM weight is
 * a function of the parameter's filter state, which both hold; a FIXED weight is part of the graph
 * hash). The instance memory of a layered graph has two more poses and layer caches (mass fx[N],
 * contributions fx[S], joint weights fx[J]); a graph without layers has exactly the old layout.
 * Cost only (the same bits either way): within one pose a motion slot is sampled once, however many of
 * the base and the layers use it, and a layer whose slot contributions equal the base's (a switch
 * resting on the base's own node) takes the base pose as its layer pose instead of blending it again.
 *
 * Root motion (graph.h: root_motion, root_rotation, root_joint = R). All fix16, 64-bit intermediates.
 *   Samples: the root sample of a clip at clip time t is R's local (translation p, rotation q) exactly as
 *   bsync_clip_sample with BSYNC_LOOP_CLAMP gives it (rest values where the clip has no track), so
 *   S = sample(0) and E = sample(duration) (the last key's state). Frame of a rotation: FULL -> q;
 *   YAW -> its twist about +Y, normalize(0, q.y, 0, q.w) (identity when q.y = q.w = 0).
 *   Piece a -> b (two root samples): with f = frame(q_a): translation conj(f) (p_b - p_a) (its y set
 *   to 0 in YAW mode), rotation conj(f) frame(q_b); so a piece is expressed in the character's frame
 *   at its start. Pieces chain by composition (t1, r1) o (t2, r2) = (t1 + r1 t2, r1 r2).
 *   Per bound motion slot with contribution c > 0 this tick (the slots the pose samples; zero-weight
 *   slots, whose phases still advance, contribute nothing): the previous and current sampling
 *   positions P0, P1 (the driving clock before and after this tick's advance, + the offsets, as
 *   cycles * 2^32 + phase), sampled at A = sample(seconds(P0)), B = sample(seconds(P1)) (the seconds the
 *   pose uses), and k = floor(P1 / 2^32) - floor(P0 / 2^32) loop wraps:
 *     k = 0: A->B;   k > 0: A->E o (S->E)^(k-1) o S->B;   k < 0: A->S o (E->S)^(-k-1) o E->B
 *   (the power by repeated squaring; time scales are positive, so k < 0 does not occur today); its
 *   rotation normalised; a clip of duration 0 gives zero / identity.
 *   Blend, with w_i = min(c_i, 64) and W = sum w_i (exact): translation = sum w_i t_i / max(W, 1)
 *   (exact 64-bit sum, divided once, rounded to nearest, ties away from zero, saturated); rotation:
 *   each r_i taken with w >= 0 (negated when w < 0, or w = 0 and its first nonzero of w, x, y, z is
 *   negative), the exact sum of w_i r_i plus (1 - W) identity when W < 1, rounded to fix16 and
 *   normalised; a single slot with W >= 1 is copied as is. So weight that motions without clip data
 *   hold (the pose's rest remainder) moves nothing, and W = 0 gives zero / identity.
 *   The delta is zero / identity at init, in KEEP and NONE modes and at tick 0. It is a function of the
 *   state (the clocks before the last tick are the current ones stepped back exactly by the current
 *   steps), so snapshots do not store it: load recomputes it, and the state checksum covers it.
 *   Pose: KEEP -> unchanged. NONE -> joint R takes its rest transform. EXTRACT FULL -> R's translation
 *   and rotation are its rest ones (scale as blended). EXTRACT YAW -> R's translation is (rest x,
 *   blended y, rest z) and its rotation frame(rest.r) conj(frame(q)) q for the blended q (the yaw
 *   removed, pitch and roll kept). Joint queries and pose checksums see the same pose.
 *
 * Switches (graph.h, bsync_graph_create_ex). Each switch has a stack of at most BSYNC_SWITCH_STACK_DEPTH
 * entries, oldest first, each (child, base, fade, done) and a derived weight; init: one entry
 * (initial_child, base 1.0, fade 0, done 0). Weights (fix16 raw, exact integer rules): one entry ->
 * 1.0; else with the newest entry T (fade F > 0, done d < F): w_T = (d * 65536 + F / 2) / F (integer
 * division: d/F rounded, ties up), R = 1.0 - w_T, every older entry but the one just below T gets
 * floor(base_i * R / 65536), and the one just below T gets R minus their sum; so the weights are >= 0
 * and sum to exactly 1.0 every tick, and the older entries keep their proportions (base_i, which sum
 * to 1.0) while T fades in. The switch node's child weights are the sums of its entries' weights per
 * child (a state may be in the stack twice) and replace the node's blend-space weights.
 * A tick (bsync_instance_tick_ex) first validates every trigger (nothing changes on failure:
 * BSYNC_INVALID_ARGUMENT for switch_index >= switch count, child >= the node's child count,
 * fade_ticks > BSYNC_SWITCH_MAX_FADE_TICKS, carry_time not 0/1, or triggers NULL with a count), then,
 * between step 2 and step 3 above (so before the clocks advance): the triggers in array order, each:
 *   - if its child is already the newest entry's: ignored (a repeated "play" does not restart a fade);
 *   - if its child is in no entry: that state's clock (its motion clock in the NONE node, or its child
 *     node's own clock) restarts: cycles 0 and phase 0 (carry 0), or with carry_time the phase of the
 *     current DOMINANT entry's state clock (highest weight, ties to the newer), with its carry when the
 *     two clocks have the same denominator (else carry 0): phase-matched transitions. A state still in
 *     the stack keeps its clock (no jump while it fades);
 *   - every entry's base := its current weight, fade := done := 0; if the stack is full, the oldest
 *     entry is dropped and its base added to the next one's (no weight is lost, no pop); the new entry
 *     (child, base 0, fade F, done 0) is pushed (weight 0 at that moment);
 * then every switch's fade advances one tick: if the stack has more than one entry, the newest
 * entry's done += 1 (when < F); when done reaches F (at once for F = 0: an instant switch) the stack
 * collapses to that entry alone (child, base 1.0, fade 0, done 0): all older entries had weight 0.
 * So a trigger in tick t with fade F gives the new state weight k/F (rounded) after tick t + k - 1,
 * 1.0 after tick t + F - 1; interrupting A->B mid-fade with ->C keeps A and B (scaled down together,
 * no pop). An instant (or inertialized) entry pushed by an earlier trigger of the same tick counts
 * with weight 1.0 when a later trigger of that tick pushes on top of it. State: the stacks (state
 * checksum and snapshots below).
 *
 * Inertialization (opt-in per trigger: inertialize = 1, fade_ticks = T >= 1; only on a graph with a
 * skeleton, else the tick fails with BSYNC_MISMATCH). Instead of cross-fading, the trigger switches the
 * weights at once and hides the pop with a decaying per-joint pose offset that starts with the source's
 * velocity (Bollo, "Inertialization: High-Performance Animation Transitions in Gears of War", GDC 2018;
 * what was followed: the talk's quintic and a0, and the velocity clamp and t1 shortening as written
 * out in Unreal Engine's FInertializationPoseDiff::CalcInertialFloat (AnimNode_Inertialization.cpp,
 * whose comments derive t1 = -5 x0 / v0 and the zero-jerk a0; UE further clamps a0 >= 0, which is NOT
 * done here: it would change the zero-velocity curve):
 *   - weights: the trigger is pushed like an instant one (the entry's fade is 0, whatever T): at the
 *     end of the tick the stack has collapsed to the new state alone; clocks restart / carry exactly
 *     as for any trigger. A trigger whose state is already the newest entry is ignored altogether
 *     (no inertialization either).
 *   - offsets: at the end of the tick (after step 6, so at the clocks the tick produced) two poses are
 *     computed as bsync_instance_pose would, without any inertialization offset: NEW with every
 *     switch's current stack, OLD with switch i's stack as it was before this tick's triggers, aged by
 *     this tick's fade step (what it would be had the triggers not come; the other switches at their
 *     current stacks), and to OLD switch i's own running offset is applied when it was inertializing
 *     (so an interrupted inertialization continues from what was being shown). Per joint j:
 *     translation offset o_j = OLD.t - NEW.t (saturating), rotation offset q_j = normalize(OLD.r *
 *     conj(NEW.r)) (from NEW to OLD), negated when its w < 0 (or w = 0 and its first nonzero of w, x, y,
 *     z is negative). Scale has no offset (it switches at once). Their magnitudes: x0 = |o_j|
 *     (bsync_vec3_length) and the angle x0 = 2 atan2(|q_j.xyz|, q_j.w) in [0, pi] (bsync_fx_atan2).
 *   - initial velocities (per tick; Bollo's per-vector form, the same target pose for both offsets): in
 *     a tick with at least one inertialized trigger (validated), before anything changes, the pose
 *     PREV that bsync_instance_pose would have given after the previous tick (every running offset
 *     included) is computed. Per joint, with the previous offsets o' = PREV.t - NEW.t and q' =
 *     normalize(PREV.r * conj(NEW.r)) (negated when dot(q', q_j) < 0) and the direction d = o / |o|
 *     (bsync_fx_div per component; o = o_j, resp. q_j.xyz): translation v_t = (o_j - o') . d (that is
 *     x0 - x_-1 with x_-1 = o' . d, the previous offset projected on the offset's direction), rotation
 *     v_r = 2 atan2(q_j.xyz . d, q_j.w) - 2 atan2(q'.xyz . d, q'.w) (the angle about q_j's axis now
 *     minus before; both taken the same way, so a source that did not move gives exactly 0). A velocity
 *     pointing away from zero (v > 0) is zeroed, as is any velocity of a zero offset. With several
 *     switches starting in one tick, PREV includes every running offset (each switch's motion sees
 *     the others').
 *   - decay: elapsed e = 0 after the trigger tick, +1 at the start of every later tick; when e reaches
 *     T the inertialization ends (state and offsets zeroed) before that tick's triggers, so after tick
 *     t + T (trigger in tick t) the pose is the plain blended pose. Per joint and part, the offset's
 *     magnitude follows Bollo's quintic x(t) = A t^5 + B t^4 + C t^3 + a0/2 t^2 + v0 t + x0 with
 *     t1 = min(T, 5 x0 / |v0|) (shortened so the curve cannot overshoot past zero), a0 = (-8 v0 t1 -
 *     20 x0) / t1^2 (zero jerk at t1), A = -(a0 t1^2 + 6 v0 t1 + 12 x0) / (2 t1^5), B = (3 a0 t1^2 + 16
 *     v0 t1 + 30 x0) / (2 t1^4), C = -(3 a0 t1^2 + 12 v0 t1 + 20 x0) / (2 t1^3), and x = 0 for t >= t1.
 *     These six conditions (x, v at 0; x, v, a, jerk 0 at t1) make x have a quadruple root at t1, so in
 *     s = t / t1 exactly x(t) = x0 (1 - s)^4 (1 + 4 s + v0 t / x0): with v0 = 0 the zero-velocity curve
 *     (1 - s)^4 (1 + 4 s), and shortened (t1 = 5 x0 / |v0|, so v0 t / x0 = -5 s) x0 (1 - s)^5. The
 *     factor x(e) / x0 is bsync_instance_inertia_curve(e, T, x0, v0); with v0 = 0 it is exactly
 *     bsync_instance_inertia_decay(e, T): s = (e * 65536 + T / 2) / T (integer division: e/T as fix16,
 *     rounded, ties up), then by Horner with bsync_fx_mul (rounded to nearest, ties away from zero) h =
 *     4s; h = (h - 15) s; h = (h + 20) s; h = (h - 10) s; x = h s + 1, clamped to [0, 1.0]; i.e. x(s) =
 *     1 - 10 s^2 + 20 s^3 - 15 s^4 + 4 s^5 = (1 - s)^4 (1 + 4 s): x(0) = 1, x'(0) = 0, x''(0) = -20
 *     (Bollo's a0 for v0 = 0), x(1) = x'(1) = x''(1) = 0. Exact values: x = 1.0 at e = 0, 0.1875 (raw
 *     12288) at s = 1/2, 0 for e >= T. Each of the five roundings is at most half a raw step and
 *     |s| <= 1, so x is within 2.5 raw steps of the exact polynomial at that s; where x is a few raw
 *     steps (long T, e near T) consecutive values may rise by one raw step (rounding, not overshoot).
 *     With v0 < 0 (and x0 > 0), integers only (every intermediate below 2^52, proof in instance_switch.c):
 *     1.0 at e = 0, 0 for e >= T; shortened (|v0| T > 5 x0): 0 when e |v0| >= 5 x0, else s = round(e
 *     |v0| 65536 / (5 x0)) and p = 1 - s; else s as above and p = 1 + 4 s - round(e |v0| 65536 / x0)
 *     (clamped at 0); then u = 1 - s, u4 = round(u^4) in Q32 and the factor round(u4 p) (Q16), at most
 *     1.0. Rounding: within 3 raw steps of x(e) / x0 for the exact t1 (tests/unit/test_inertialize.c).
 *   - pose: every pose call (bsync_instance_pose, _joint_query, _pose_checksum) takes the blended pose
 *     (base, layers, root-motion rule) and then, for every inertializing switch in index order, per
 *     joint, with x the zero-velocity factor above: t += bsync_vec3_scale(o_j, f_t) (saturating) with
 *     f_t = x when v_t = 0, else bsync_instance_inertia_curve(e, T, |o_j|, v_t); r = d * r with, when
 *     v_r = 0, d = q_j when x = 1.0, else d = bsync_quat_nlerp(identity, q_j, x) (as without
 *     velocities, bit for bit), and when v_r != 0, with the angle a = 2 atan2(|q_j.xyz|, q_j.w) and f_r =
 *     bsync_instance_inertia_curve(e, T, a, v_r): d = q_j when f_r = 1.0, else
 *     bsync_quat_from_axis_angle(q_j.xyz, bsync_fx_mul(a, f_r)) (not renormalised after the product).
 *     So at the trigger tick each rotation is OLD's within rounding, up to sign (q_j's alignment puts
 *     the result in NEW.r's hemisphere: -OLD.r when dot(OLD.r, NEW.r) < 0), the translation OLD's
 *     exactly (unless saturated); the tick after, a moving joint continues with about the source's
 *     velocity (plus NEW's own motion) instead of stopping.
 *     Cost: a tick with an inertialized trigger blends the full pose once more (PREV, running offsets
 *     applied) and, per started switch, twice (and re-flattens twice), even when the caller never asks
 *     for poses (blend-state-only use); pose calls pay a length, an atan2 and a sine/cosine per moving
 *     joint.
 *   - interruptions: a cross-fade or instant trigger on an inertializing switch leaves the offset
 *     decaying on top of the new cross-fade; an inertialized one replaces it by the new offset above
 *     (the old one included in OLD and in PREV). Several inertialized triggers for one switch in one
 *     tick: one inertialization, T of the last applied one, OLD from the stack before the tick's first
 *     trigger.
 *   - state: per switch (active, e, T) and per joint (o_j, q_j, v_t, v_r) in instance memory (instance
 *     memory grows by 16 W + 36 W J bytes (rounded up to 8) + two poses of J transforms (NEW scratch,
 *     PREV) for graphs with W > 0 switches AND a skeleton; other graphs keep exactly their old size);
 *     t1 and the polynomial are derived from these at every use. Covered by the state checksum and
 *     snapshots only while some switch inertializes (below), so everything without the option keeps
 *     its bits.
 *
 * Checksums (XXH64, checksum.h feeders, never cursors or caches):
 *   state     = seed BSYNC_CHECKSUM_SEED_STATE; u64 tick; u32 P; per parameter bsync_param_checksum_feed;
 *               u32 N; per node: i64 cycles, u32 phase, u64 carry; u32 C; per NONE motion clock the same;
 *               u32 M; per motion its leaf weight (fx); u32 S; per child slot (nodes in index order,
 *               children in order) its node-local weight (fx); the root-motion delta: vec3 translation,
 *               quat rotation (bsync_checksum_vec3 / _quat; zero / identity unless EXTRACT); then ONLY for a
               graph with switches: u32 W; per switch u32 count, per entry u32 child, fx base, u32 fade,
               u32 done, fx weight (a graph without switches checksums exactly as before); then ONLY
               while at least one switch inertializes: u32 A (their count); per such switch in index
               order u32 index, u32 e, u32 T, per joint vec3 o_j, quat q_j, fx v_t, fx v_r
               (bsync_checksum_vec3 / _quat / _fx).
 *   parameter = seed BSYNC_CHECKSUM_SEED_PARAM; u32 index; fx filtered value; bsync_param_checksum_feed.
 *   node      = seed BSYNC_CHECKSUM_SEED_NODE; u32 index; i64 cycles, u32 phase, u64 carry; fx L_N;
 *               u32 child_count; per child: fx weight, and for a NONE node's motion child its clock.
 *   pose      = bsync_checksum_pose of the blended local pose; per joint bsync_checksum_pose_joints.
 *
 * Snapshot bytes (all little-endian; never raw struct memory):
 *   u32 magic "BSNP" (0x504E5342), u32 version 1, u64 graph hash, u32 total length, u32 0,
 *   u64 tick, u32 P, per parameter: fx target, fx value[0], fx value[1], u32 settled, then i64 value and
 *   i64 velocity of smooth[0] and of smooth[1]; u32 N, per node clock: i64 cycles, u32 phase, u64 carry;
 *   u32 C, per NONE motion clock the same; [switches, below]; then u64 XXH64 (seed 0) of every byte
 *   before it. Total: 32 + 4 + 48 P + 4 + 20 N + 4 + 20 C + 8 bytes (bsync_instance_snapshot_size).
 *   A graph WITH switches (W > 0) writes version 2 (BSYNC_SNAPSHOT_VERSION_SWITCHES) and, before the
 *   XXH64: u32 W, per switch u32 count and BSYNC_SWITCH_STACK_DEPTH entries of u32 child, fx base,
 *   u32 fade, u32 done (unused entries zero): + 4 + 68 W bytes. A graph without switches writes and
 *   reads exactly version 1 as before; each graph accepts only its own version (else BSYNC_BAD_BLOB).
 *   Switch checks on load: count 1..4, child < the node's child count, unused entries zero; one
 *   entry: base 1.0, fade = done = 0; several: the older ones fade = done = 0, bases in [0, 1.0]
 *   summing to exactly 1.0, the newest base 0 and done < fade <= BSYNC_SWITCH_MAX_FADE_TICKS.
 *   While at least one switch inertializes, save writes version 4
 *   (BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY): the version 2 bytes and, before the XXH64, u32 A (1..W),
 *   per inertializing switch in increasing index order u32 index, u32 e, u32 T, then per joint i32 o.x
 *   o.y o.z, i32 q.x q.y q.z q.w, i32 v_t, i32 v_r: + 4 + A (12 + 36 J) bytes
 *   (bsync_instance_snapshot_size_now; at most bsync_instance_snapshot_size_max). Otherwise save writes
 *   exactly version 2 (or 1) as before. Load of a graph with switches and a skeleton accepts version 2
 *   (no inertialization: any running one is cleared), version 3 (BSYNC_SNAPSHOT_VERSION_INERTIA, the
 *   format before velocities: the same block without v_t, v_r, 12 + 28 J bytes per switch; loaded with
 *   zero velocities, so it continues exactly as it did) and version 4; checks: A in 1..W, indices
 *   strictly increasing and < W, 1 <= T <= BSYNC_SWITCH_MAX_FADE_TICKS, e < T, no offset component
 *   INT32_MIN, rotation components in [-1.0, 1.0] with w >= 0 (w = 0: first nonzero of x, y, z
 *   positive); version 4: v_t, v_r <= 0 and not INT32_MIN, v_t = 0 when |o| = 0, v_r = 0 when q's angle
 *   is 0. Other graphs never accept versions 3 and 4.
 * Load checks, before anything is written (the instance is untouched on failure): length, magic,
 * version (BSYNC_BAD_BLOB), graph hash (BSYNC_MISMATCH), the XXH64, the counts, and every field's range
 * (settled 0/1, the second component and smooth[1] zero for a scalar parameter, the whole state zero for
 * a pair's second parameter, smooth values within the fix16 range * 2^16, velocities within +-2^58,
 * |cycles| <= 2^62, carry < the clock's denominator) -> BSYNC_BAD_BLOB. Loading then recomputes the
 * derived state and resets the cursors.
 *
 * Errors: BSYNC_INVALID_ARGUMENT for NULL arguments, a misaligned or an instance made for no graph;
 * BSYNC_BUFFER_TOO_SMALL for short memory or buffers; pose calls on a graph without a skeleton ->
 * BSYNC_MISMATCH; a joint index out of range -> BSYNC_INVALID_ARGUMENT.
 *
 * Does not: allocate (ever: the instance lives in caller memory), keep globals, use floating point.
 */
#ifndef BLENDSYNC_INSTANCE_H
#define BLENDSYNC_INSTANCE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/time.h"
#include "blendsync/param.h"
#include "blendsync/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CHECKSUM_SEED_STATE ((uint64_t)0x626c656e64737461ull) /* "blendsta" */
#define BSYNC_CHECKSUM_SEED_PARAM ((uint64_t)0x626c656e64707261ull) /* "blendpra" */
#define BSYNC_CHECKSUM_SEED_NODE ((uint64_t)0x626c656e646e6f64ull)  /* "blendnod" */
#define BSYNC_SNAPSHOT_MAGIC 0x504E5342u                            /* "BSNP" little-endian */
#define BSYNC_SNAPSHOT_VERSION 1u          /* graphs without switches */
#define BSYNC_SNAPSHOT_VERSION_SWITCHES 2u /* graphs with switches */
#define BSYNC_SNAPSHOT_VERSION_INERTIA 3u  /* read only: inertialization without velocities */
#define BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY 4u /* graphs with switches, while one inertializes */
#define BSYNC_SWITCH_STACK_DEPTH 4u
#define BSYNC_SWITCH_MAX_FADE_TICKS 0x100000u

typedef struct bsync_instance bsync_instance; /* opaque, caller memory */

typedef struct bsync_instance_input {
    const fix16_t* targets;  /* parameter_count targets (a pair: x in the first, y in the second) */
    uint32_t target_count;   /* must equal the graph's parameter count */
} bsync_instance_input;

/* Bytes an instance of this graph needs (0 for NULL). Includes the pose scratch: one local pose per
 * motion slot with a clip, plus one (plus two and the layer caches when the graph has layers; plus
 * the inertialization area when it has switches and a skeleton: "Inertialization"). */
BSYNC_API size_t bsync_instance_memory_size(const bsync_graph* graph);
BSYNC_API bsync_result bsync_instance_init(void* mem, size_t size, const bsync_graph* graph, bsync_instance** out);
BSYNC_API const bsync_graph* bsync_instance_graph(const bsync_instance* inst);

/* Advance exactly one tick. BSYNC_INVALID_ARGUMENT for NULL arguments or a wrong target_count
 * (nothing changes then). */
BSYNC_API bsync_result bsync_instance_tick(bsync_instance* inst, const bsync_instance_input* input);

/* "play SWITCH CHILD FADE_TICKS [carry] [inertialize]" (see "Switches" and "Inertialization" above).
 * Code that fills a trigger field by field must set every field (inertialize = 0 for a cross-fade). */
typedef struct bsync_switch_trigger {
    uint32_t switch_index; /* index into the graph's switches */
    uint32_t child;        /* child index of the switch node: the state to play */
    uint32_t fade_ticks;   /* 0 = instant; at most BSYNC_SWITCH_MAX_FADE_TICKS; with inertialize: the
                              offset's decay length T (>= 1) */
    uint32_t carry_time;   /* 0 or 1: start at the dominant state's normalised phase */
    uint32_t inertialize;  /* 0 or 1: switch at once and decay a pose offset over fade_ticks ticks */
} bsync_switch_trigger;
/* bsync_instance_tick with triggers applied in array order (trigger_count 0: the same as
 * bsync_instance_tick). Every argument is checked before anything changes: first every trigger's
 * arguments (BSYNC_INVALID_ARGUMENT, also for inertialize > 1 or inertialize with fade_ticks 0), then
 * BSYNC_MISMATCH for an inertialized trigger on a graph without a skeleton. */
BSYNC_API bsync_result bsync_instance_tick_ex(bsync_instance* inst, const bsync_instance_input* input,
                                    const bsync_switch_trigger* triggers, uint32_t trigger_count);

typedef struct bsync_switch_entry {
    uint32_t child;      /* state */
    fix16_t weight;      /* its current weight */
    uint32_t fade_ticks; /* the newest entry of several: its fade length; else 0 */
    uint32_t fade_done;  /* ticks of that fade done */
} bsync_switch_entry;
/* The stack of switch sw, oldest first, into out[0 .. *count). BSYNC_INVALID_ARGUMENT for NULL
 * arguments or sw out of range. */
BSYNC_API bsync_result bsync_instance_switch_state(const bsync_instance* inst, uint32_t sw,
                                        bsync_switch_entry out[BSYNC_SWITCH_STACK_DEPTH], uint32_t* count);

/* Switch sw's inertialization: active 0/1; while active, elapsed e, total T, the current zero-velocity
 * decay factor x, the joints with a nonzero initial velocity (translation or rotation) and the joints
 * whose t1 was shortened below T (either part); else all 0. BSYNC_INVALID_ARGUMENT for NULL arguments
 * or sw out of range. */
typedef struct bsync_inertia_state {
    uint32_t active, elapsed, total;
    fix16_t decay;
    uint32_t moving, shortened;
} bsync_inertia_state;
BSYNC_API bsync_result bsync_instance_inertia_state(const bsync_instance* inst, uint32_t sw, bsync_inertia_state* out);
/* One joint of switch sw's inertialization ("Inertialization"): per part (t: translation, r: rotation
 * angle) the offset's magnitude x0 at the trigger, the initial velocity v0 (<= 0, per tick), t1 in
 * 2^-16 ticks (T * 65536 unless shortened) and the current factor x(e) / x0; all 0 while inactive.
 * BSYNC_INVALID_ARGUMENT for NULL arguments, sw or joint out of range. */
typedef struct bsync_inertia_joint {
    fix16_t x0_t, v0_t, factor_t, x0_r, v0_r, factor_r;
    uint64_t t1_t, t1_r;
} bsync_inertia_joint;
BSYNC_API bsync_result bsync_instance_inertia_joint(const bsync_instance* inst, uint32_t sw, uint32_t joint,
                                          bsync_inertia_joint* out);
/* The decay factor x(k / total) of "Inertialization" (1.0 at k = 0; 0 for k >= total or total 0). */
BSYNC_API fix16_t bsync_instance_inertia_decay(uint32_t k, uint32_t total);
/* Bollo's factor x(e) / x0 of "Inertialization" for magnitude x0 and initial velocity v0 per tick:
 * exactly bsync_instance_inertia_decay(e, total) when x0 <= 0 or v0 >= 0 (a positive v0 is zeroed);
 * else 1.0 at e = 0, 0 for e >= min(total, 5 x0 / |v0|), in [0, 1.0]. */
BSYNC_API fix16_t bsync_instance_inertia_curve(uint32_t e, uint32_t total, fix16_t x0, fix16_t v0);

/* ---- blend state (no pose needed). Out-of-range indices give 0 / NULL. */
BSYNC_API uint64_t bsync_instance_tick_count(const bsync_instance* inst);
BSYNC_API fix16_t bsync_instance_parameter(const bsync_instance* inst, uint32_t param);  /* filtered value */
BSYNC_API fix16_t bsync_instance_target(const bsync_instance* inst, uint32_t param);     /* last target */
BSYNC_API const bsync_param_state* bsync_instance_parameter_state(const bsync_instance* inst, uint32_t param);
BSYNC_API const fix16_t* bsync_instance_leaf_weights(const bsync_instance* inst);        /* motion_count */
BSYNC_API const fix16_t* bsync_instance_node_weights(const bsync_instance* inst, uint32_t node); /* child_count */
BSYNC_API const bsync_clip_time* bsync_instance_node_time(const bsync_instance* inst, uint32_t node); /* own clock */
BSYNC_API fix16_t bsync_instance_node_phase(const bsync_instance* inst, uint32_t node);  /* own phase, [0, 1) */
/* The phase the node's children are sampled at (its driver's phase + offset), as 2^-32 units. */
BSYNC_API uint32_t bsync_instance_node_sample_phase(const bsync_instance* inst, uint32_t node);
BSYNC_API fix16_t bsync_instance_node_length(const bsync_instance* inst, uint32_t node); /* L_N, seconds */

/* ---- root motion: the last tick's delta (see "Root motion" above). */
typedef struct bsync_root_motion {
    bsync_vec3 translation; /* in the character's frame at the start of the tick, metres */
    bsync_quat rotation;    /* unit; a rotation about +Y in YAW mode */
} bsync_root_motion;
/* BSYNC_INVALID_ARGUMENT for NULL arguments (out untouched). Zero / identity unless EXTRACT. */
BSYNC_API bsync_result bsync_instance_root_motion(const bsync_instance* inst, bsync_root_motion* out);

/* ---- checksums */
BSYNC_API uint64_t bsync_instance_state_checksum(const bsync_instance* inst);
BSYNC_API uint64_t bsync_instance_parameter_checksum(const bsync_instance* inst, uint32_t param);
BSYNC_API uint64_t bsync_instance_node_checksum(const bsync_instance* inst, uint32_t node);
/* Computes the pose (into the instance's scratch) and checksums it; out_per_joint: NULL or
 * joint_count entries. */
BSYNC_API bsync_result bsync_instance_pose_checksum(bsync_instance* inst, uint64_t* out, uint64_t* out_per_joint);

/* ---- pose. out_local: joint_count transforms; out_model: NULL or joint_count transforms. */
BSYNC_API bsync_result bsync_instance_pose(bsync_instance* inst, bsync_trs* out_local, bsync_trs* out_model);
/* Model transforms of joints[0 .. count) into out_model[0 .. count) (any order, repeats allowed). */
BSYNC_API bsync_result bsync_instance_joint_query(bsync_instance* inst, const uint32_t* joints, uint32_t count,
                                        bsync_trs* out_model);

/* ---- snapshots */
/* The size of a snapshot without a running inertialization (versions 1 and 2; the only size for
 * graphs that cannot inertialize). */
BSYNC_API size_t bsync_instance_snapshot_size(const bsync_graph* graph);
/* The largest snapshot of this graph (every switch inertializing); a buffer of this size always fits. */
BSYNC_API size_t bsync_instance_snapshot_size_max(const bsync_graph* graph);
/* The size bsync_instance_save writes now (0 for an invalid instance). */
BSYNC_API size_t bsync_instance_snapshot_size_now(const bsync_instance* inst);
/* *written (may be NULL) = bytes written (bsync_instance_snapshot_size_now); BSYNC_BUFFER_TOO_SMALL
 * when cap is short (nothing written). */
BSYNC_API bsync_result bsync_instance_save(const bsync_instance* inst, void* buf, size_t cap, size_t* written);
BSYNC_API bsync_result bsync_instance_load(bsync_instance* inst, const void* buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_INSTANCE_H */
