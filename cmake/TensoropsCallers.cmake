# tensorops_add_caller(<name> <sources>...): a program of tensorops' own
# (test, example, documentation page, benchmark) whose files call ops
# through the light API. Its files are compiled into the object library
# <name>_calls; the kernels they call come from the project's kernel library
# (tensorops_add_kernels in CMakeLists.txt), compiled once for all programs.
# Compile settings of the calling files go on <name>_calls.
function(tensorops_add_caller name)
  add_library(${name}_calls OBJECT ${ARGN})
  target_link_libraries(${name}_calls PRIVATE tensorops::tensorops tensorops_warnings)
  add_executable(${name} $<TARGET_OBJECTS:${name}_calls>)
  target_link_libraries(${name} PRIVATE tensorops::tensorops tensorops_project_kernels)
  set_property(GLOBAL APPEND PROPERTY TENSOROPS_KERNEL_CALLERS ${name}_calls)
endfunction()
