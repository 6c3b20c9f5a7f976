# syntax=docker/dockerfile:1
# Chaiwala image: one image runs the gateway or any rules service, chosen by command.
#
#   docker build -t chaiwala:dev .
#   docker run --rm -p 8000:8000 chaiwala:dev                                   # gateway (default)
#   docker run --rm chaiwala:dev python -m services.rules.server darjeeling    # a rules service
#
# Stage 1 (build) installs the codegen toolchain and generates the gRPC/protobuf code into /app/gen.
# It also builds /opt/venv, a separate virtualenv holding ONLY the runtime dependencies listed in
# [project].dependencies, pinned by constraints.txt. Stage 2 (runtime) copies that venv, the
# application source, the content packs and the generated code; nothing of the codegen, dev, local
# or mapgen extras reaches it.

ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src

# Runtime venv: only the base dependencies (read from pyproject.toml), pinned by constraints.txt.
# Copied first so that this layer is cached until the dependency lists change.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/runtime-requirements.txt \
 && python -m venv /opt/venv \
 && /opt/venv/bin/pip install -c constraints.txt -r /tmp/runtime-requirements.txt

# Codegen venv: the project with its `codegen` extra (grpcio-tools, mypy-protobuf). Build stage only.
COPY services ./services
COPY gateway ./gateway
RUN python -m venv /opt/codegen \
 && /opt/codegen/bin/pip install -c constraints.txt '.[codegen]'

# Generated code, exactly as `make proto` produces it (protoc-gen-mypy must be on PATH).
COPY proto ./proto
RUN mkdir -p /app/gen \
 && PATH="/opt/codegen/bin:${PATH}" /opt/codegen/bin/python -m grpc_tools.protoc -Iproto \
        --python_out=/app/gen --grpc_python_out=/app/gen --mypy_out=/app/gen \
        --include_source_info --descriptor_set_out=/app/gen/chaiwala.descriptors.pb \
        $(find proto -name '*.proto')

# The SDK the web client imports (web/sdk/, what `make sdk` builds): only its JavaScript is needed
# here, and emitting it does not need the types generated from the OpenAPI document (--noCheck;
# `make sdk` type-checks them).  Debian's node and npm, as `make node` installs them, run the pinned
# TypeScript of sdk/typescript/package-lock.json.  Build stage only: no node in the runtime image.
FROM ${PYTHON_IMAGE} AS sdk
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /sdk
COPY sdk/typescript/package.json sdk/typescript/package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY sdk/typescript/tsconfig.json ./
COPY sdk/typescript/src ./src
RUN node_modules/.bin/tsc -p tsconfig.json --noCheck --declaration false --outDir /out

FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="chaiwala" \
      org.opencontainers.image.description="Chaiwala board-game server: gateway and rules services"

# A fixed, unprivileged uid/gid so Kubernetes can enforce runAsNonRoot with runAsUser 10001.
RUN groupadd --system --gid 10001 chaiwala \
 && useradd --system --uid 10001 --gid chaiwala --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin chaiwala

ENV PATH="/opt/venv/bin:${PATH}" \
    PYTHONPATH="/app:/app/gen" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CHAIWALA_LOG_FORMAT=json

COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --from=build /app/gen ./gen
COPY proto ./proto
COPY seeds ./seeds
COPY services ./services
COPY gateway ./gateway
# The reference web client, served by the gateway at /play/ (static files, no bundler), and its SDK.
COPY web ./web
COPY --from=sdk /out ./web/sdk
COPY deploy/healthcheck.py ./deploy/healthcheck.py
# Byte-compile now: the root filesystem is read-only at run time (Kubernetes readOnlyRootFilesystem).
RUN python -m compileall -q /app/services /app/gateway /app/gen /app/deploy

USER 10001:10001
# 8000: gateway HTTP; 50051: rules-service gRPC; 9090: rules-service Prometheus metrics.
EXPOSE 8000 50051 9090
CMD ["python", "-m", "gateway"]
