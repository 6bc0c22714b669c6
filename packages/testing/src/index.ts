export { fixturesDir, osuFixture, osuFixturesDir } from './fixtures.js';
export { natsUrlForTests } from './nats.js';
export { createTestDatabase, postgresUrlForTests, type TestDatabase } from './postgres.js';
export { startS3Server } from './s3-server.js';
export { redisUrlForTests, skipReason } from './engines.js';
export { CHROMIUM_PATH, chromiumSkipReason, launchChromium } from './chromium.js';
export { freePort } from './free-port.js';
