# syntax=docker/dockerfile:1
# A Hyphae agent in a container: the static binary, redis-server for its
# embedded store, a non-root user hyphae (uid 10001), the data dir
# /var/lib/hyphae as a volume. scripts/image builds it; docs/install.md
# runs it.
#
#   docker build -t hyphae .
#   docker run -d --name hyphae -v hyphae:/var/lib/hyphae -p 4001:4001 -p 4001:4001/udp hyphae
#   docker exec hyphae hyphae id
#
# Build arguments: VERSION, COMMIT, BUILD_DATE (scripts/image sets them
# from git, as scripts/release does), EXTRA_PACKAGES (Debian packages the
# jobs need, e.g. "python3 curl": the runner serves python jobs only when
# python3 is on PATH).

# The builder runs on the build machine and cross-compiles for the target
# platform (docker buildx build --platform linux/arm64,linux/arm/v7 …).
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS TARGETARCH TARGETVARIANT
ARG VERSION=0.1.0-dev COMMIT=unknown BUILD_DATE=unknown
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOARM="${TARGETVARIANT#v}" CGO_ENABLED=0 GOOS="${TARGETOS:-linux}" GOARCH="${TARGETARCH:-amd64}" \
    go build -trimpath -buildvcs=false -o /out/hyphae \
      -ldflags="-s -w -buildid= \
        -X github.com/hyphae-run/hyphae/node.Version=${VERSION} \
        -X github.com/hyphae-run/hyphae/cmd/hyphae/cli.commit=${COMMIT} \
        -X github.com/hyphae-run/hyphae/cmd/hyphae/cli.buildDate=${BUILD_DATE}" \
      ./cmd/hyphae

FROM debian:bookworm-slim
ARG EXTRA_PACKAGES=""
# tini is PID 1: it reaps what jobs leave behind and passes SIGTERM to the
# agent alone, which then drains (running jobs finish, outbox flushed).
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server tini ca-certificates ${EXTRA_PACKAGES} \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 hyphae \
 && useradd --system --uid 10001 --gid hyphae --home-dir /var/lib/hyphae --no-create-home \
      --shell /usr/sbin/nologin hyphae \
 && install -d -m 0750 -o hyphae -g hyphae /var/lib/hyphae
COPY --from=build /out/hyphae /usr/local/bin/hyphae
USER hyphae
WORKDIR /var/lib/hyphae
ENV HYPHAE_DATA_DIR=/var/lib/hyphae
VOLUME /var/lib/hyphae
# libp2p over TCP and QUIC. The API stays on the container's loopback and
# its socket: use it with `docker exec <container> hyphae …`.
EXPOSE 4001/tcp 4001/udp
# The first start initialises the volume (actor key = peer ID, config,
# API token); later starts find it. Any hyphae command can replace `run`.
ENTRYPOINT ["/usr/bin/tini", "--", "/bin/sh", "-c", "test -e /var/lib/hyphae/actor.key || hyphae init >&2 || exit 1; exec hyphae \"$@\"", "hyphae"]
CMD ["run"]
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s CMD ["hyphae", "info"]
STOPSIGNAL SIGTERM
