# Town's image: the town's node_modules installed inside Linux (lmdb's native binding is Linux's,
# whatever machine builds it), the TypeScript built inside, and a runtime stage holding only the
# production dependencies, the built dist/src and the assets src/ reads at run time. Runs as the
# image's unprivileged `node` user. compose.yaml builds it for every town service.
#
#   docker build -t town .
#   docker run --rm -p 8080:8080 -v town-data:/data town     # embedded stores under /data
#
# The same image runs a front (the default command) or a worker:
#   node dist/src/cli/projector.js <projection…> | node dist/src/cli/reactor.js feed

ARG NODE_IMAGE=node:20-bookworm-slim

# The production dependencies alone, installed from the lockfile.
FROM ${NODE_IMAGE} AS deps
WORKDIR /town
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Every dependency (the compiler), then the build of src/ alone (tsconfig.build.json).
FROM ${NODE_IMAGE} AS build
WORKDIR /town
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TOWN_DATA=/data \
    PORT=8080
WORKDIR /town
COPY --from=deps /town/node_modules ./node_modules
COPY --from=build /town/dist/src ./dist/src
# What the town reads from its checkout at run time: package.json (its version, and how it finds
# its root), the sealed card library, the pages' static assets and the guide's worked sessions.
COPY package.json ./
COPY src ./src
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# /health: 200 as soon as the process listens (a front on PORT, a worker on TOWN_METRICS_PORT).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.TOWN_METRICS_PORT || process.env.PORT || 8080}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
