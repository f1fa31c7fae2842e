# Highway is the one dependency of the library itself. A parent project may
# already provide it (FetchContent of a newer Highway defines hwy::hwy); only
# look for an installed package when it has not.
include(GNUInstallDirs)

if(NOT TARGET hwy::hwy)
  if(TARGET hwy)
    add_library(hwy::hwy ALIAS hwy)
  else()
    find_package(hwy REQUIRED)
  endif()
endif()

# ThreadPool (tensorops/parallel/thread_pool.h) runs std::threads.
find_package(Threads REQUIRED)
