# Sources of generation 0.10.0, added to the tsched_core library.
foreach(f entry input uops st10 to_uop realize group ast schedule memory explain)
  list(APPEND TSCHED_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${f}.c)
endforeach()
