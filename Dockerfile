# syntax=docker/dockerfile:1
# Sextant's image is the npm package a trader installs, run on the trader's user folder. The build stage packs the
# package (`npm pack`: its prepare script compiles the TypeScript) and installs that tarball with production
# dependencies only; the runtime stage holds that install and nothing else of the build context. It runs as the
# non-root `node` user under tini, in the user folder mounted at /userdir (`sextant init` lays one out), and writes
# only to the user folder's data/, so the root filesystem can be read-only. docs/docker.md walks through it.
#
# The build context is the source tree (src/ and package-lock.json: `npm ci`, then `npm pack`), or an installed copy
# of the package (node_modules/sextant: no sources, no lockfile and no compiler, so it is packed as it is, with
# `npm pack --ignore-scripts`).
FROM node:24.22-bookworm-slim AS build
# SQLite on Node 24 is better-sqlite3 13 (src/journal/sqlite-driver.ts), whose binary ships in the package: its install
# runs node-gyp only to find that binary (python3 and make, headers from this image, no download), and nothing is
# compiled. With no C++ compiler here the 12.x line, Node 20's optional dependency, is left out (or, where its
# prebuilt binary can be downloaded, installed and never loaded).
ENV npm_config_nodedir=/usr/local
RUN apt-get update && apt-get install -y --no-install-recommends python3 make && rm -rf /var/lib/apt/lists/*
WORKDIR /package
COPY . .
# From the sources, `npm ci` without install scripts (nothing is loaded here: the dependencies' scripts run when the
# tarball is installed below), then `npm pack`, whose prepare script builds dist/ afresh.
RUN mkdir -p /pack \
  && if [ -d src ] && [ -f package-lock.json ]; then \
       rm -rf dist && npm ci --ignore-scripts && npm pack --pack-destination /pack; \
     else \
       npm pack --ignore-scripts --pack-destination /pack; \
     fi \
  && npm install --global --prefix /opt/sextant --omit=dev /pack/sextant-*.tgz

FROM node:24.22-bookworm-slim
ENV NODE_ENV=production
ENV PATH=/opt/sextant/bin:$PATH
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/sextant /opt/sextant
# The user folder: configs, strategies and data/ (journal, token file) are read from here, as by a `sextant` run in
# it. Its strategies' `sextant/strategy` is this install's own module (the user folder needs no node_modules/).
WORKDIR /userdir
USER node
EXPOSE 9464
# /health on the address, port and token of the config the container runs (sextant health reads them from it, as
# `sextant status` does): bound beyond loopback, the token comes from SEXTANT_HTTP_TOKEN or SEXTANT_HTTP_TOKEN_FILE.
# A container run on another config overrides this check with that config (compose does, service by service).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 --start-interval=2s \
  CMD ["sextant", "health", "--config", "config/dry-run.yaml"]
ENTRYPOINT ["/usr/bin/tini", "--", "sextant"]
CMD ["run", "--config", "config/dry-run.yaml"]
