/* version.c — the version table (version.h): one row per tinygrad version,
 * naming the features it has. A field left out of a row is false (or the
 * first member of its enum). */
#include "version.h"
#include <string.h>

const TgVersionInfo tg_versions[TG_NVERSIONS] = {
  [TG_0_9_1] = {
    .name = "0.9.1", .commit = "v0.9.1", .generation = GEN_LAZYOP,
    /* common/ */
    .f.symbolic = SYM_NODE,
    /* v0_9_lazyop/ */
    /* conformance/tools/ */
    .f.ast_is_lazyop = true,
  },
  [TG_0_9_2] = {
    .name = "0.9.2", .commit = "v0.9.2", .generation = GEN_LAZYOP,
    /* common/ */
    .f.symbolic = SYM_NODE,
    /* v0_9_lazyop/ */
    .f.simple_pads_dict = true,
    .f.isolated_children = true,
    .f.fuse_arange_conv_bw = true,
    .f.lower_lazybuffer = true,
    .f.recurse_reduceops = true,
    .f.queue_in_degree_order = true,
    .f.interval_memory_planner = true,
    /* conformance/tools/ */
    .f.ast_is_lazyop = true,
    .f.lazyop_pretty_print = true,
  },
  [TG_0_9_2_197F8FD] = {
    .name = "0.9.2+197f8fd", .commit = "197f8fd986", .generation = GEN_NONE,
    /* common/ */
    .f.symbolic = SYM_NODE,
    /* v0_9_lazyop/ */
    /* conformance/tools/ */
    .f.uop_argstr_str = true,
  },
  [TG_0_10_0] = {
    .name = "0.10.0", .commit = "v0.10.0", .generation = GEN_LAZYBUF_UOP,
    /* common/ */
    .f.symbolic = SYM_UOP,
    /* v0_10_lazybuf_uop/ */
    /* conformance/tools/ */
    .f.uop_argstr_str = true,
  },
  [TG_0_10_0_2CA41D6] = {
    .name = "0.10.0+2ca41d6", .commit = "2ca41d6a44", .generation = GEN_LAZYBUF_UOP,
    /* common/ */
    .f.symbolic = SYM_UOP,
    /* v0_10_lazybuf_uop/ */
    .f.uop_base_keeps_buffer_view = true,
    .f.buf_uop_of_buffer = true,
    .f.uop_view_contiguous_to_base = true,
    .f.can_pad_stops_at_realizes = true,
    .f.outs_base_realized = true,
    .f.outs_realized_by_sink = true,
    .f.realize_records_op = true,
    .f.consts_in_break_sched = true,
    .f.to_uop_keeps_cast_arg = true,
    .f.fold_img_cast = true,
    .f.fuse_arange_of_const = true,
    .f.swizzle_r_axis_after_shape = true,
    .f.metadata_of_ops = true,
    .f.assign_adj = true,
    .f.buf_limit_in_full_ast_rewrite = true,
    .f.srcs_deleted_when_prescheduled = true,
    /* conformance/tools/ */
    .f.uop_argstr_str = true,
  },
  [TG_0_10_1] = {
    .name = "0.10.1", .commit = "v0.10.1", .generation = GEN_KERNEL_GRAPH,
    /* common/ */
    .f.symbolic = SYM_UOP,
    .f.returns_becomes_map = true,
    /* v0_10_2_kernel_graph/ */
    .f.buffer_arg_num_size = true,
    .f.preload_scheduler = true,
    .f.sym_folds_reduce_of_const = true,
    .f.sym_drops_realized_sink_srcs = true,
    .f.sym_image_cast_under_view = true,
    .f.images_fixed_in_add_buffers = true,
    .f.disk_views_in_do_realize = true,
    .f.symbolic_no_bitcast_or_pow = true,
    .f.buf_uop_through_view = true,
    .f.merge_views_needs_st = true,
    /* conformance/tools/ */
    .f.schedule_input_tensor_uops = true,
  },
  [TG_0_10_2] = {
    .name = "0.10.2", .commit = "v0.10.2", .generation = GEN_KERNEL_GRAPH,
    /* common/ */
    .f.symbolic = SYM_UOP,
    .f.returns_becomes_map = true,
    /* v0_10_2_kernel_graph/ */
    /* conformance/tools/ */
    .f.schedule_input_tensor_uops = true,
  },
  [TG_0_10_2_A0B4465] = {
    .name = "0.10.2+a0b4465", .commit = "a0b4465412", .generation = GEN_KERNEL_GRAPH,
    /* common/ */
    .f.symbolic = SYM_UOP,
    .f.returns_becomes_map = true,
    /* v0_10_2_kernel_graph/ */
    .f.tensor_map_reorder_view = true,
    .f.merge_views_movement = true,
    .f.view_left_unsafe_pad = true,
    .f.sym_split_reduceop = true,
    .f.sym_sink_keeps_bases = true,
    .f.sym_disk_buffer_view_arg = true,
    .f.dont_push_views = true,
    .f.create_kernels_assign_reshape = true,
    .f.fix_kernel_ast = true,
    .f.ops_metadata_of_tensors = true,
    .f.uop_cast_always = true,
    .f.kernel_st_of_size = true,
    .f.unique_label_at_call = true,
    .f.planner_tlsf = true,
    /* conformance/tools/ */
    .f.schedule_input_tensor_uops = true,
  },
};

int tg_version_parse(const char *s) {
  for (int v = 0; v < TG_NVERSIONS; v++)
    if (s && strcmp(s, tg_versions[v].name) == 0) return v;
  return -1;
}

const char *tg_version_name(TgVersion v) {
  return (unsigned)v < TG_NVERSIONS ? tg_versions[v].name : "?";
}
