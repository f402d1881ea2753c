# wheel.cmake - what the Python wheel installs, when scikit-build-core drives the build.
