# Storehouse container image: build with the Swift toolchain, run on Debian slim.
#
#   docker build -t storehouse .
#   docker run -d -p 8080:8080 -v storehouse-data:/data storehouse
#
# Without a registry (no Docker engine here): ../shared/tools/container-bases.sh makes the two
# base images locally, then `bash scripts/container-smoke.sh` builds and checks this file.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---- build ----------------------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build
WORKDIR /src
# The manifest first: with no package dependencies there is nothing to resolve, but a layer
# cache keyed on it keeps working once there is.
COPY Package.swift ./
COPY Sources ./Sources
# Tests/ is declared in Package.swift; SwiftPM wants the folders to exist, not to build them.
COPY Tests ./Tests
# --static-swift-stdlib links the Swift runtime and Foundation into the binary, so the runtime
# image needs only glibc and libstdc++ (both in debian:bookworm-slim).
RUN swift build -c release --static-swift-stdlib --product storehouse \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/storehouse" /out/usr/local/bin/storehouse \
 && strip /out/usr/local/bin/storehouse

# ---- run ------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown

# OCI image-spec annotations (https://github.com/opencontainers/image-spec/blob/main/annotations.md).
# REVISION (a commit) and CREATED (RFC 3339) come from the build: scripts/container-smoke.sh passes
# them, e.g. --build-arg REVISION=$(git rev-parse HEAD) --build-arg CREATED=$(date -u +%FT%TZ).
# No licenses/source/documentation labels: the repository declares no license and no public URL.
LABEL org.opencontainers.image.title="storehouse" \
      org.opencontainers.image.description="HTTP/1.1 JSON server hosting one Redux-like store per session, with SSE change streams" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"

# A fixed numeric uid/gid, so `runAsNonRoot` checks and volume ownership work without a passwd lookup.
RUN groupadd --system --gid 10001 storehouse \
 && useradd --system --uid 10001 --gid storehouse --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin storehouse \
 && install -d -o 10001 -g 10001 -m 0750 /data

COPY --from=build /out/ /

# Every flag has an environment variable (`storehouse --help`); these are the container's defaults.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    STOREHOUSE_DATA_DIR=/data

VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
EXPOSE 8080

# `storehouse healthcheck` GETs /healthz on $HOST:$PORT over a plain socket (no curl in the image).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["storehouse", "healthcheck"]

# SIGTERM: stop accepting, answer and journal in-flight actions, send `end` to SSE streams, exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["storehouse"]
