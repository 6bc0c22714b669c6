/** JSON logs (pino), one logger per service process, passed down rather than imported. */
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  /** Service name, on every line as `service`. */
  service: string;
  /** @defaultValue `info` */
  level?: LoggerOptions['level'];
  /** A file the lines are appended to (written synchronously, as to standard output). @defaultValue standard output */
  file?: string;
}

export function createLogger({ service, level = 'info', file }: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
  };
  return file ? pino(options, pino.destination({ dest: file, sync: true })) : pino(options);
}
