/** JSON logs (pino), one logger per service process, passed down rather than imported. */
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  /** Service name, on every line as `service`. */
  service: string;
  /** @defaultValue `info` */
  level?: LoggerOptions['level'];
}

export function createLogger({ service, level = 'info' }: LoggerSettings): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
  });
}
