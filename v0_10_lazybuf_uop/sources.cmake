# Sources of the LazyBuffer -> UOp generation (0.10.0, 0.10.0+2ca41d6), added to the tsched_core library.
foreach(f entry input scratch uops st to_uop realize group ast schedule memory explain)
  list(APPEND TSCHED_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${f}.c)
endforeach()
