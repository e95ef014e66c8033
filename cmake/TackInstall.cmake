# Installation as a CMake package: find_package(tack) then target_link_libraries(... tack::tack).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tack EXPORT tackTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tack DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# tack::mpi in an export set of its own: a consumer loads it only where it finds MPI too.
if(TARGET tack_mpi)
  install(TARGETS tack_mpi EXPORT tackMpiTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT tackMpiTargets NAMESPACE tack:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tack)
endif()
install(EXPORT tackTargets NAMESPACE tack:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tack)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tackConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tackConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tack)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tackConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tackConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tackConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tack)
