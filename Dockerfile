# syntax=docker/dockerfile:1
# Build: compiles TypeScript and the native SQLite module; runtime: production dependencies only, non-root.
FROM node:20.20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
COPY strategies ./strategies
USER node
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/sextant.js"]
CMD ["run", "--config", "config/default.yaml"]
