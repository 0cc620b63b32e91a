/**
 * The one error type that handlers throw. The error middleware turns it into an
 * ot:ErrorReport in the negotiated format (http/error-handler.ts, rdf/error-report.ts); anything else becomes a 500
 * whose details are logged, never sent.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, details?: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (message: string, details?: string) => new HttpError(400, 'InvalidInput', message, details);
export const notFound = (message: string) => new HttpError(404, 'NotFound', message);
export const forbidden = (message: string) => new HttpError(403, 'Forbidden', message);
export const notAcceptable = (message: string) => new HttpError(400, 'NotAcceptable', message);
/** A resource that has no form in the type asked for (a model without an ONNX form): 406, beyond the interface's own codes. */
export const noSuchForm = (message: string) => new HttpError(406, 'NotAcceptable', message);
export const unsupportedType = (message: string) => new HttpError(400, 'UnsupportedMediaType', message);
export const tooLarge = (message: string) => new HttpError(413, 'PayloadTooLarge', message);
export const conflict = (message: string) => new HttpError(409, 'Conflict', message);
export const badGateway = (message: string, details?: string) => new HttpError(502, 'BadGateway', message, details);

export function methodNotAllowed(allowed: string[]): HttpError {
  return new HttpError(405, 'MethodNotAllowed', `method not allowed; allowed: ${allowed.join(', ')}`, undefined, {
    Allow: allowed.join(', '),
  });
}
