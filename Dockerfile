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
RUN npm ci --no-audit --no-fund
COPY packages packages
RUN npx tsc -b packages/server && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
COPY package.json ./
COPY conf conf
COPY sounds sounds
RUN mkdir -p recordings var && chown -R node:node recordings var
USER node
# HTTP/ARI, SIP over UDP, the RTP range of conf/rtp.conf, and the manager interface (off by default).
EXPOSE 8088/tcp 5060/udp 10000-20000/udp 5038/tcp
VOLUME ["/app/var", "/app/recordings"]
ENTRYPOINT ["node", "packages/server/dist/main.js"]
CMD ["--conf", "conf", "--data", "var"]
