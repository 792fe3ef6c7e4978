# syntax=docker/dockerfile:1
# Switchboard: a static binary on a distroless base, running as non-root.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#                --build-arg COMMIT=$(git rev-parse HEAD) -t switchboard .
#   docker run -p 8080:8080 --env-file .env switchboard            # switchboard serve
#   docker run --rm switchboard ask "What is our refund policy?"   # any subcommand
#
# The build stage runs scripts/build.sh, the project's one release build
# (cmd/bot/release_test.go checks that this line runs it and that it makes a
# static binary that prints its version).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Empty values take the script's defaults (the build date is now).
ARG VERSION=
ARG COMMIT=
ARG DATE=
ARG OUT=/out/switchboard
RUN scripts/build.sh
# The embedded store's folder, owned by the runtime user (distroless has
# no shell to create it there).
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/switchboard /usr/local/bin/switchboard
COPY --from=build --chown=65532:65532 /out/data /data
ENV SWITCHBOARD_DATA_DIR=/data \
    HTTP_ADDR=:8080
USER 65532:65532
EXPOSE 8080
VOLUME ["/data"]
# `switchboard healthcheck` GETs http://127.0.0.1:$PORT/healthz: no shell or curl needed.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["/usr/local/bin/switchboard", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/switchboard"]
CMD ["serve"]
