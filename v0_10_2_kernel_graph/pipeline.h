/* pipeline.h — the kernel-graph generation (tinygrad 0.10.2's
 * engine/schedule.py, and through the version table's features 0.10.1's and
 * a0b4465's): the passes of create_schedule_with_vars in the order it runs
 * them, with the C function and file of each. The state of one capture is
 * KG (kg.h); the headers below declare what the files share.
 *
 *   pass                                     C                                        file
 *   (the capture's input)                    v0_10_2_decode_input                     decode.c
 *   graph_rewrite_map(big_sink, merge_views+remove_movement_ops+sym)
 *                                            v0_10_2_pm_merge_views, _pm_remove_movement_ops,
 *                                            _pm_symbolic_simple, _pm_sym             tensor_rules.c, symbolic.c
 *     a0b4465: +reorder_view+replace_contiguous  v0_10_2_pm_reorder_view,             reorder_view.c
 *                                            v0_10_2_pm_replace_contiguous            tensor_rules.c
 *   group_realizes (do_realize, create_ctx,  v0_10_2_group_realizes                   group.c
 *     realize_before_view, recursive_group, can_pad)
 *   becomes_map from the tensor map          becomes_from_tensor_map                  schedule.c
 *   graph_rewrite_map(merge_views+create_kernels)  v0_10_2_pm_create_kernels          kernel.c
 *     (create_kernel, append_to_kernel)
 *   assign dependencies, the BFS             assign_dependencies, bfs_schedule        schedule.c
 *   schedule_uop, per kernel                 v0_10_2_schedule_uop                     kernel.c
 *     add_buffer_ops, unbind_vars,           v0_10_2_pm_add_buffer_ops, _pm_unbind_vars, kernel_rules.c
 *     view_right, fix_kernel_ops             _pm_view_right (swizzle_r, reduceop_view_right,
 *                                            elementwise_view_right), _pm_fix_kernel_ops
 *     view_left (ops.py)                     v0_10_2_pm_view_left                     tensor_rules.c
 *     a0b4465: fix_kernel_ast                v0_10_2_fix_kernel_ast                   kernel_ast.c
 *   memory_planner (engine/memory.py)        v0_10_2_memory_planner                   memory.c, tlsf.c
 *   the `expected` object                    v0_10_2_encode_result                    encode.c
 *   the replayer's entry                     v0_10_2_schedule_capture                 entry.c
 *
 * 0.10.1 (feature preload_scheduler) leaves after the tensor map for
 * v0_10_2_create_schedule_with_preloads (schedule_items.c): add_buffers,
 * do_realize, group_realizes and break_sched (load_realized, store_or_fuse)
 * in bufferize.c, schedule_uop with to_si and kernel_to_si, the BFS over
 * ScheduleItems (preload.h).
 *
 * Helpers: uops.c (ops.py UOp properties and constructors, GroupOp, the
 * scratch arenas, the id-indexed maps), walk.c (UOp.toposort), st.c (the
 * ShapeTracker methods on interned values, sint operators), explain.c (what
 * `tsched explain` is told).
 *
 * Names: everything a file exports carries the prefix v0_10_2_ before the
 * Python name it mirrors (v0_10_2_group_realizes is schedule.py's
 * group_realizes, v0_10_2_uop_st is UOp.st, v0_10_2_st_reshape is
 * ShapeTracker.reshape, v0_10_2_sint_* the Python operators on int | UOp);
 * file-local functions are static and keep the bare Python name. A rule
 * function is named after the Python function the UPat calls
 * (reduceop_view_right); a rule that is a lambda in Python is named after its
 * PatternMatcher and what it does (sym_copy_const, view_left_const). Errors
 * are raised (common/error.h): a Python exception tinygrad would raise,
 * unsupported, or bad input, each unwinding to the entry point's protected
 * call. */
#ifndef KG_PIPELINE_H
#define KG_PIPELINE_H
#include "kernel_rules.h"
#include "preload.h"
#include "schedule.h"
#endif
