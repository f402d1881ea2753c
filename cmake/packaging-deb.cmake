# packaging-deb.cmake - Debian (and RPM) packages through CPack: filled in by the packaging work.
