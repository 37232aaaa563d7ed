# syntax=docker/dockerfile:1
# Sextant on Node 24: the build stage compiles TypeScript; the runtime stage has production dependencies only, runs
# as the non-root `node` user under tini, and writes only to /app/data (a volume), so the root filesystem can be
# read-only (.ts strategies load without a writable temp dir).
FROM node:24.22-bookworm-slim AS build
WORKDIR /app
# SQLite on Node 24 is better-sqlite3 13 (src/journal/sqlite-driver.ts), whose binary ships in the package: its install
# runs node-gyp only to find that binary (python3 and make, headers from this image, no download), and nothing is
# compiled. With no C++ compiler here the 12.x line, Node 20's optional dependency, is left out (or, where its
# prebuilt binary can be downloaded, installed and never loaded).
ENV npm_config_nodedir=/usr/local
RUN apt-get update && apt-get install -y --no-install-recommends python3 make && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle-vendor.mjs ./scripts/
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:24.22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /app/data && chown node:node /app/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
COPY strategies ./strategies
# The shipped strategies compiled into the image's cache: a read-only container loads them without compiling.
RUN node --input-type=module -e "const { loadStrategy, strategyNames } = await import('./dist/strategy/loader.js'); for (const n of strategyNames(['strategies'])) await loadStrategy(n, ['strategies']);"
USER node
VOLUME ["/app/data"]
EXPOSE 9464
# /health answers 200 while polls are fresh; node's fetch keeps curl out of the image. Bound beyond loopback,
# /health needs the bearer token (daemon.http.tokenEnv, SEXTANT_HTTP_TOKEN by default): sent when it is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const t=process.env.SEXTANT_HTTP_TOKEN;fetch('http://127.0.0.1:9464/health',{headers:t?{authorization:'Bearer '+t}:{}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/sextant.js"]
CMD ["run", "--config", "config/default.yaml"]
