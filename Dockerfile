# A minimal image: the static tairbench binary and nothing else.
# Build with 'make image' (the binary is built first, CGO_ENABLED=0).
FROM scratch
COPY bin/tairbench /tairbench
ENTRYPOINT ["/tairbench"]
