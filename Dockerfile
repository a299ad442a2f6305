# mergequeue for Slack: production image.
#   docker build -t mergequeue-slack .
#   docker run -p 3000:3000 --env-file .env mergequeue-slack
# Stages: build (TypeScript -> dist/), deps (production dependencies only), runtime (non-root, no npm, no TypeScript).
# test/production/image.test.ts replays the build and deps stages and starts the runtime CMD, since images
# cannot be built where the tests run; keep instructions simple (COPY, RUN, ENV...) so it can.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci installs exactly the lockfile (and fails if package.json and the lockfile disagree), so every
# build gets the versions that were tested.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
# npm and corepack are not needed to run the app; leaving them out shrinks what an attacker could use.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
  && mkdir -p /app/data && chown node:node /app/data
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
# The embedded SQLite file lives here when DATABASE_URL is unset; use PostgreSQL for several replicas.
VOLUME ["/app/data"]
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
