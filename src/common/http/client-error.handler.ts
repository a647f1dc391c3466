import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { FET_CATALOGUE, FetCode } from '../../engine/errors/fet-code.js';

interface ClientError extends Error {
  code?: string;
}

/**
 * Requests Node's HTTP parser refuses (a request line or headers over 16 KiB, a malformed
 * request) never reach Express; Node would answer them with an empty body. This answers them
 * with the FET envelope every other refusal has.
 */
export function answerClientErrorsWithEnvelope(server: Server, onRefused?: (status: number) => string): void {
  server.on('clientError', (error: ClientError, socket: Socket) => {
    // As Node's own handler: answer only when nothing was written on this connection yet.
    if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    const [status, reason, code, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', FetCode.InvalidHeader, 'the request line and headers must not exceed 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', FetCode.BadRequest, 'the request was not received in time']
          : [400, 'Bad Request', FetCode.BadRequest, 'malformed HTTP request'];
    const body = JSON.stringify({ code, title: FET_CATALOGUE[code].title, message });
    // The access log's id for it (the caller's own X-Request-Id is among what could not be read).
    const requestId = onRefused?.(status);
    const idHeader = requestId === undefined ? '' : `X-Request-Id: ${requestId}\r\n`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${idHeader}Connection: close\r\n\r\n${body}`,
    );
  });
}
