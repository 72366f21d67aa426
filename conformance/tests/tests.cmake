# Tests, registered in CTest. Unit tests use cmocka.
function(tsched_unit_test name)
  add_executable(${name} ${CMAKE_SOURCE_DIR}/conformance/tests/${name}.c)
  target_link_libraries(${name} PRIVATE tsched_core ${CMOCKA_LIBRARY})
  add_test(NAME ${name} COMMAND ${name} ${ARGN})
endfunction()

tsched_unit_test(test_core)
tsched_unit_test(test_rewrite)
tsched_unit_test(test_explain)
# 0.10.x symbolic sints against conformance/vectors/sint-v*.jsonl.gz (conformance/oracle/record_sint_vectors.py)
tsched_unit_test(test_symbolic_uop ${CMAKE_SOURCE_DIR}/conformance/vectors)

# The main job as a test: replay the bundled corpus. Any read error fails it,
# and so does any failing capture not on record in conformance/known-failures/
# (a regression guard: recorded failures are still counted and printed as fail).
file(GLOB TSCHED_KNOWN_FAILURES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/known-failures/*.txt)
set(TSCHED_KNOWN_FAILURE_ARGS)
foreach(f ${TSCHED_KNOWN_FAILURES})
  list(APPEND TSCHED_KNOWN_FAILURE_ARGS --known-failures ${f})
endforeach()
add_test(NAME replay_corpus COMMAND tsched replay ${TSCHED_KNOWN_FAILURE_ARGS} ${CMAKE_SOURCE_DIR}/conformance/corpus)
# The scaling pairs (conformance/oracle/record_scaling.py): one program at size N and 10N per generation.
add_test(NAME replay_corpus_extra COMMAND tsched replay ${TSCHED_KNOWN_FAILURE_ARGS} ${CMAKE_SOURCE_DIR}/conformance/corpus-extra)
add_test(NAME replay_scaling COMMAND tsched replay ${TSCHED_KNOWN_FAILURE_ARGS} ${CMAKE_SOURCE_DIR}/conformance/corpus-scaling)

# Golden-output tests of the command-line tool (TSCHED_UPDATE_GOLDEN=1 ctest rewrites them).
function(tsched_golden_test name status)
  add_test(NAME ${name} COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/golden.sh
           ${CMAKE_SOURCE_DIR}/conformance/tests/golden/${name}.txt ${status} $<TARGET_FILE:tsched> ${ARGN})
endfunction()
tsched_golden_test(bad_input_lines 1 replay conformance/tests/bad-input/broken-captures.txt)
tsched_golden_test(missing_file 1 replay conformance/tests/bad-input/no-such-file.jsonl)
# captures the fuzzer (conformance/tests/fuzz/) made that once crashed or hit undefined behaviour
tsched_golden_test(bad_input_fuzz_found 1 replay --verbose conformance/tests/bad-input/fuzz-found.txt)

# tsched ast: the expected text was printed by real tinygrad (conformance/oracle/print_asts.py)
# for these captures of the `workloads` suite.
set(TSCHED_AST_GOLDEN_NAMES --name "workloads.broadcast_chain#4" --name "workloads.casts#1" --name "workloads.softmax_norms#2"
    --name "workloads.movement_chain#4" --name "workloads.movement_chain#5" --name "workloads.symbolic_shapes#1")
tsched_golden_test(ast_v0_9_1 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.9.1-sample.jsonl.gz)
tsched_golden_test(ast_v0_9_2 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.9.2-sample.jsonl.gz)
tsched_golden_test(ast_v0_9_2_197f8fd 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.9.2+197f8fd-sample.jsonl.gz)
tsched_golden_test(ast_v0_10_0 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.10.0-sample.jsonl.gz)
tsched_golden_test(ast_v0_10_2 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(ast_v0_10_0_2ca41d6 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.10.0+2ca41d6-sample.jsonl.gz)
tsched_golden_test(ast_v0_10_1 0 ast --recorded ${TSCHED_AST_GOLDEN_NAMES} conformance/tests/tools/v0.10.1-sample.jsonl.gz)
# test_schedule captures with BUFFER_VIEW (0.10.0), DEFINE_VAR and BITCAST (0.10.2); every
# test_schedule and workloads capture was checked the same way when the printer was written.
tsched_golden_test(ast_test_v0_10_0 0 ast --recorded conformance/tests/tools/v0.10.0-test-sample.jsonl.gz)
tsched_golden_test(ast_test_v0_10_2 0 ast --recorded conformance/tests/tools/v0.10.2-test-sample.jsonl.gz)
tsched_golden_test(ast_test_v0_10_0_2ca41d6 0 ast --recorded conformance/tests/tools/v0.10.0+2ca41d6-test-sample.jsonl.gz)
# 0.9.2+197f8fd: UOps.EXT of a VIEW and a COPY (FastEnum values), BITCAST, ASSIGN, reduces whose swizzles moved
tsched_golden_test(ast_test_v0_9_2_197f8fd 0 ast --recorded conformance/tests/tools/v0.9.2+197f8fd-test-sample.jsonl.gz)
# 0.10.1: COPY (its target buffer first), BITCAST, DEFINE_VAR, VALID
tsched_golden_test(ast_test_v0_10_1 0 ast --recorded conformance/tests/tools/v0.10.1-test-sample.jsonl.gz)
tsched_golden_test(ast_json 0 ast --recorded --json --name "workloads.casts#1" conformance/tests/tools/v0.10.2-sample.jsonl.gz)

# The other tools, on recordings only (--recorded) so that the text does not
# change as the generations land, and on fixed copies of a few corpus
# workloads (conformance/tests/tools/v*-sample.jsonl.gz) so that it does not
# change when the corpus is re-recorded. Captures recorded with and without
# FUSE_ARANGE=1 (0.10.2) give diff a same-generation change to find.
set(TSCHED_WORKLOADS conformance/tests/tools/v0.9.1-sample.jsonl.gz
    conformance/tests/tools/v0.10.0-sample.jsonl.gz conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(diff_fuse_arange 1 diff conformance/tests/tools/v0.10.2-arange.jsonl.gz conformance/tests/tools/v0.10.2-arange-FUSE_ARANGE.jsonl.gz)
tsched_golden_test(diff_fuse_arange_json 1 diff --json conformance/tests/tools/v0.10.2-arange.jsonl.gz conformance/tests/tools/v0.10.2-arange-FUSE_ARANGE.jsonl.gz)
tsched_golden_test(diff_same 0 diff --all conformance/tests/tools/v0.10.2-arange.jsonl.gz conformance/tests/tools/v0.10.2-arange.jsonl.gz)
tsched_golden_test(diff_generations 1 diff conformance/tests/tools/v0.9.1-sample.jsonl.gz conformance/tests/tools/v0.10.0-sample.jsonl.gz)
# 0.10.1 (the PRELOAD scheduler on tensor UOps) next to its neighbours: same fusion as 0.10.2,
# its own kernel order (a BFS over ScheduleItems) and its own folds
tsched_golden_test(diff_v0_10_1 1 diff conformance/tests/tools/v0.10.1-sample.jsonl.gz conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(compare_v0_10_1 0 compare --recorded -n "workloads.softmax_norms#2" -n "workloads.conv2d_fwd_bwd#2"
                   conformance/tests/tools/v0.10.0-sample.jsonl.gz conformance/tests/tools/v0.10.1-sample.jsonl.gz conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(compare_names 0 compare --recorded --name "workloads.cross_entropy#1" -n "workloads.softmax_norms#2" ${TSCHED_WORKLOADS})
tsched_golden_test(compare_table 0 compare --recorded ${TSCHED_WORKLOADS})
tsched_golden_test(compare_json 0 compare --recorded --json --name "workloads.broadcast_chain#4" ${TSCHED_WORKLOADS})
tsched_golden_test(dot_v0_9_1 0 dot --recorded --name "workloads.broadcast_chain#4" conformance/tests/tools/v0.9.1-sample.jsonl.gz)
tsched_golden_test(dot_v0_10_2_item 0 dot --recorded --name "workloads.conv2d_fwd_bwd#2" --item 1 conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(dot_two_captures 1 dot --recorded conformance/tests/tools/v0.10.0-sample.jsonl.gz)
tsched_golden_test(explain_v0_9_1 0 explain --recorded --name "workloads.cross_entropy#1" conformance/tests/tools/v0.9.1-sample.jsonl.gz)
tsched_golden_test(explain_v0_10_0 0 explain --recorded --name "workloads.softmax_norms#2" conformance/tests/tools/v0.10.0-sample.jsonl.gz)
tsched_golden_test(explain_v0_10_2 0 explain --recorded --name "workloads.conv2d_fwd_bwd#2" conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(explain_json 0 explain --recorded --json --name "workloads.broadcast_chain#4" conformance/tests/tools/v0.10.2-sample.jsonl.gz)
# The reasons the schedulers report (not --recorded): a few test_schedule captures per
# generation, picked for their reasons (unsafe pad, forced, chased reduce, several views...).
tsched_golden_test(explain_reported_v0_9_1 0 explain conformance/tests/tools/v0.9.1-explain.jsonl.gz)
tsched_golden_test(explain_reported_v0_10_0 0 explain conformance/tests/tools/v0.10.0-explain.jsonl.gz)
tsched_golden_test(explain_reported_v0_10_2 0 explain conformance/tests/tools/v0.10.2-explain.jsonl.gz)
tsched_golden_test(explain_reported_v0_10_0_2ca41d6 0 explain conformance/tests/tools/v0.10.0+2ca41d6-explain.jsonl.gz)
tsched_golden_test(explain_reported_v0_10_1 0 explain conformance/tests/tools/v0.10.1-explain.jsonl.gz)
tsched_unit_test(test_v0_9_schedule)
# The replayer comparing the schedule item by item while it is encoded
# (conformance/replay.c), on the tools' sample captures.
add_executable(test_replay ${CMAKE_SOURCE_DIR}/conformance/tests/test_replay.c ${CMAKE_SOURCE_DIR}/conformance/replay.c
               ${CMAKE_SOURCE_DIR}/conformance/jobs.c
               ${CMAKE_SOURCE_DIR}/conformance/bench.c ${TSCHED_TOOL_SOURCES})
target_include_directories(test_replay PRIVATE ${CMAKE_SOURCE_DIR}/conformance ${CMAKE_SOURCE_DIR}/conformance/tools)
target_link_libraries(test_replay PRIVATE tsched_core ${CMOCKA_LIBRARY})
add_test(NAME test_replay COMMAND test_replay ${CMAKE_SOURCE_DIR}/conformance/tests/tools)
tsched_unit_test(test_v0_10_0_schedule)
tsched_unit_test(test_v0_10_2_schedule)

# Every committed capture follows the contract (Python 3 standard library only).
find_program(PYTHON3 python3)
if(PYTHON3)
  add_test(NAME capture_schema COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/conformance/oracle/check_schema.py
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  add_test(NAME capture_schema_scaling COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/conformance/oracle/check_schema.py
           conformance/corpus-scaling WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endif()

# Bad-input fuzzing (conformance/tests/fuzz/): mutated corpus captures must
# get a verdict (any), never a crash, a leak or undefined behaviour; in the
# ASan+UBSan build the sanitizers judge. Fixed seed: the same captures each run.
add_test(NAME fuzz_bad_input COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/fuzz/fuzz.sh $<TARGET_FILE:tsched> 1 40
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

# ---- the command line (conformance/tools/cli.c) ----
# One parser for every command: options anywhere, -- ends them, --opt=value,
# short forms; an unknown option is one line and exit 2; `help CMD`.
set(TSCHED_SAMPLE_0102 conformance/tests/tools/v0.10.2-sample.jsonl.gz)
tsched_golden_test(cli_version 0 --version)
tsched_golden_test(cli_help 0 --help)
tsched_golden_test(cli_help_command 0 help ls)
tsched_golden_test(cli_unknown_option 2 replay conformance/corpus --bogus)
tsched_golden_test(cli_unknown_short_option 2 ast -x ${TSCHED_SAMPLE_0102})
tsched_golden_test(cli_missing_value 2 ast ${TSCHED_SAMPLE_0102} --name)
tsched_golden_test(cli_flag_with_value 2 replay --json=yes ${TSCHED_SAMPLE_0102})
tsched_golden_test(cli_bad_number 2 ast --item=-1 ${TSCHED_SAMPLE_0102})
tsched_golden_test(cli_unknown_command 2 frobnicate)
tsched_golden_test(cli_no_operand 2 replay --verbose)
# `ast FILE --name X` once dumped every capture: options after the operands count
tsched_golden_test(cli_options_after_operands 0 ast ${TSCHED_SAMPLE_0102} --recorded "--name=workloads.casts#1" -i 0)
# --item past the schedule is an error everywhere
tsched_golden_test(ast_item_out_of_range 1 ast -r -n "workloads.casts#1" --item 99 ${TSCHED_SAMPLE_0102})
tsched_golden_test(dot_item_out_of_range 1 dot -r -n "workloads.casts#1" --item 7 ${TSCHED_SAMPLE_0102})
tsched_golden_test(dot_bad_format 2 dot -r -T "png/../x" ${TSCHED_SAMPLE_0102})
# compare never guesses: names are --name, operands are paths; what is missing is named
tsched_golden_test(compare_missing_name 1 compare -r -n "workloads.casts#1" -n "no.such#0" ${TSCHED_SAMPLE_0102})
tsched_golden_test(compare_missing_path 1 compare -r -n "workloads.casts#1" conformance/no-such-folder)
# tsched ls: name, version, kernels, verdict; filters; --json
tsched_golden_test(ls_sample 0 ls conformance/tests/tools/v0.9.1-sample.jsonl.gz)
tsched_golden_test(ls_filters 0 ls -n "workloads.soft*" -V 0.10.2 -s pass ${TSCHED_WORKLOADS})
tsched_golden_test(ls_json 0 ls --json -n "workloads.casts" conformance/tests/bad-input/one-failing.txt ${TSCHED_SAMPLE_0102})
tsched_golden_test(ls_verdict_fail 0 ls -s fail -v conformance/tests/bad-input/one-failing.txt)
tsched_golden_test(ls_bad_filter 2 ls -V 0.8 ${TSCHED_SAMPLE_0102})
# replay: failures listed (text and --json), names with control characters escaped
tsched_golden_test(replay_one_failing 1 replay conformance/tests/bad-input/one-failing.txt)
tsched_golden_test(replay_one_failing_json 1 replay --json conformance/tests/bad-input/one-failing.txt)
tsched_golden_test(ls_escapes_names 0 ls -r conformance/tests/bad-input/one-failing.txt)
# folders with links, loops, FIFOs; truncated gzip; binary garbage; empty recordings
add_test(NAME cli_edges COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/cli/edges.sh $<TARGET_FILE:tsched> $<BOOL:${TSCHED_SANITIZE}>)
# bench on a small file (ASan once found a global-buffer-overflow in its memory measure)
tsched_golden_test(bench_help 0 bench --help)
add_test(NAME bench_small COMMAND tsched bench --repeat 1 ${CMAKE_SOURCE_DIR}/conformance/tests/tools/v0.9.1-sample.jsonl.gz)
add_test(NAME bench_summary COMMAND tsched bench -r 1 --summary --json ${CMAKE_SOURCE_DIR}/conformance/tests/tools)
set_tests_properties(bench_summary PROPERTIES PASS_REGULAR_EXPRESSION "\"min_read_build_over_parse\"")
# Recording a program in one step (tsched record -> record.py --script), with
# the checkouts given as TSCHED_TINYGRAD_<version>=/path; skipped without one.
add_test(NAME record_program COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/record/record.sh $<TARGET_FILE:tsched>)
set_tests_properties(record_program PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
# The same error in the same words in every generation: a Buffer size of 10**40, -3, 2**60, "x"
tsched_golden_test(bad_input_buffer_sizes 1 replay conformance/tests/bad-input/buffer-sizes.txt)
# cmake --install: tsched on the PATH with its man pages and data, working from any folder
add_test(NAME cli_install COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/cli/install.sh ${CMAKE_BINARY_DIR})

# tsched trace: the rewrite steps tinygrad recorded (conformance/traces/, record.py --trace)
tsched_golden_test(trace_v0_10_2 0 trace -n "workloads.casts#1" conformance/corpus/v0.10.2-workloads.jsonl.gz)
tsched_golden_test(trace_rule_json 0 trace --json --rule schedule.py:225 -n "workloads.softmax_norms#2"
                   conformance/traces/corpus/v0.10.2-workloads.trace.jsonl.gz)
tsched_golden_test(trace_kernel 0 trace --recorded --kernel 0 -n "workloads.softmax_norms#2" conformance/corpus/v0.10.2-workloads.jsonl.gz)
tsched_golden_test(trace_no_trace 1 trace conformance/tests/bad-input/no-such-file.trace.jsonl)
# 0.9.1 has no PatternMatcher: its decisions in order, as explain is told them
tsched_golden_test(trace_v0_9_1 0 trace -n "workloads.softmax_norms#2" conformance/tests/tools/v0.9.1-sample.jsonl.gz)
tsched_golden_test(trace_bad_line 1 trace conformance/tests/bad-input/broken.trace.jsonl)
# the C scheduler's steps, printed the same way (rule locations from its tables)
tsched_golden_test(trace_computed_v0_10_0 0 trace --computed -n "workloads.casts#1" conformance/tests/tools/v0.10.0-sample.jsonl.gz)
# replay --trace: every recorded trace of the main corpus is the C scheduler's, step by step
add_test(NAME replay_trace_corpus COMMAND tsched replay --trace ${TSCHED_KNOWN_FAILURE_ARGS} ${CMAKE_SOURCE_DIR}/conformance/corpus)
# a recorded trace with one step changed (its after node): the first differing step is named
tsched_golden_test(replay_trace_diff 1 replay --trace conformance/tests/trace-diff/corpus/v0.10.0-one.jsonl)

# tsched view: pages opened in headless chromium (skipped when it is not installed; ./dev installs it)
add_test(NAME view_browser COMMAND sh ${CMAKE_SOURCE_DIR}/conformance/tests/view/browser.sh $<TARGET_FILE:tsched>
         ${CMAKE_BINARY_DIR}/view-browser)
set_tests_properties(view_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
tsched_golden_test(trace_v0_10_0 0 trace -n "workloads.softmax_norms#2" conformance/corpus/v0.10.0-workloads.jsonl.gz)
