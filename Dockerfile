# Switchboard: build the TypeScript workspaces, then run the compiled server on the shipped conf/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source: it needs a compiler, Python and the local Node headers.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY packages/media-control/package.json packages/media-control/
COPY packages/core/package.json packages/core/
COPY packages/media/package.json packages/media/
COPY packages/signalling/package.json packages/signalling/
COPY packages/api/package.json packages/api/
COPY packages/manager/package.json packages/manager/
COPY packages/server/package.json packages/server/
COPY packages/server/bin packages/server/bin
# Scripts are skipped here (the root `prepare` builds every project, tests included); the native
# modules are built explicitly instead, and only the server's projects are compiled below.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 @discordjs/opus
COPY packages packages
COPY scripts/build-native.mjs scripts/
# The media package's native socket hub (without it, legs fall back to dgram sockets).
RUN npx tsc -b packages/server && node scripts/build-native.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
# ffmpeg writes the ogg and mp3 recordings (without it those formats are refused).
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
COPY package.json ./
COPY conf conf
COPY sounds sounds
# `switchboard -rx "core show channels"` inside the container (docker exec), as the server's user.
RUN ln -s /app/packages/server/bin/switchboard.js /usr/local/bin/switchboard \
  && mkdir -p recordings var && chown -R node:node recordings var
USER node
# HTTP/ARI (/metrics, /healthz, /console too), SIP over UDP, the RTP range of conf/rtp.conf, and the manager interface (off by default).
EXPOSE 8088/tcp 5060/udp 10000-20000/udp 5038/tcp
# conf/ is replaced by the operator's; var/ holds the SQLite store, logs and the control socket.
VOLUME ["/app/conf", "/app/var", "/app/recordings"]
# /healthz answers while the process serves (http.conf's address and port; override for others).
ENV SWITCHBOARD_HEALTH_URL=http://127.0.0.1:8088/healthz
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.SWITCHBOARD_HEALTH_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "packages/server/bin/switchboard.js"]
CMD ["--conf", "conf", "--data", "var"]
