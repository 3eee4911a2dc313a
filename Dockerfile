# The bot's container image: built with development dependencies, run with production ones only.
# Node 24 (the current LTS); the project also runs on Node 20.19+ and 22 (see docs/deploy.md).
#   docker build -t cdn-chatops:0.1.0 .     (the tag is package.json's version; deploy/ runs it)
#   docker run --env-file .env -p 3000:3000 cdn-chatops:0.1.0
# For linux/amd64 and linux/arm64 at once: docker buildx build --platform (docs/deploy.md).

ARG NODE_IMAGE=node:24-bookworm-slim

# ── build: compilers and headers for canvas and better-sqlite3, every dependency, tsc ──────────
# canvas is built with cairo and pango only: the charts are drawn and encoded as PNG, so its
# optional JPEG, GIF and SVG support (and their libraries at run time) are left out.
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential python3 pkg-config \
      libcairo2-dev libpango1.0-dev \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 # Production dependencies only from here on (the native modules stay as built above).
 && npm prune --omit=dev --no-audit --no-fund \
 # Sources and intermediate objects of the native modules: not needed to run them.
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
      node_modules/canvas/build/Release/obj.target \
 && npm cache clean --force

# ── runtime: Node, the cairo/pango libraries the charts draw with, a font, the built bot ───────
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcairo2 libpango-1.0-0 libpangocairo-1.0-0 fontconfig fonts-dejavu-core tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's own node user (uid 1000); ./data holds a SQLite database when no DATABASE_URL is set.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# PORT: Slack's requests in HTTP mode, and /livez, /readyz in both modes. 9464: METRICS_PORT if set.
EXPOSE 3000 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM starts the graceful stop (SHUTDOWN_TIMEOUT_MS). tini is PID 1: it passes signals on and
# reaps, so a SIGTERM during start-up (before the bot installs its handler) still stops it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
