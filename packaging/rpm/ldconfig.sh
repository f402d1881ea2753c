# ldconfig.sh - RPM %post/%postun of the plugin package: refresh the loader
# cache so that plugin.library.paths=libbucketpriority finds the library.
/sbin/ldconfig
