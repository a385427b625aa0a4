import type { Logger } from 'pino';
import { splitTarget } from '../request.ts';
import type { Middleware } from './context.ts';
import { rawTarget } from './route.ts';

/** Logs every request once answered: id, method, path (no query: it may be signed), status, time. */
export function requestLog(logger: Logger): Middleware {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info(
      {
        reqId: c.get('requestId'),
        method: c.req.method,
        url: (c.get('target') ?? splitTarget(rawTarget(c))).path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    );
  };
}
