# Sources of generation 0.9.1, added to the tsched_core library.
foreach(f entry.c decode.c graph_schedule.c lazyop.c reduceops.c create_schedule.c memory_planner.c encode.c st.c uop_ast.c)
  list(APPEND TSCHED_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${f})
endforeach()
