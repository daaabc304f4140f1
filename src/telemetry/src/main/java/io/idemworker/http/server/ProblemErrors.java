package io.idemworker.http.server;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answers Jetty generates itself (a malformed request line or header, a head over the limit, an
 * unsupported transfer coding or version, a failure outside our handler) in the api's problem
 * shape, without Jetty's message or any exception text.
 */
final class ProblemErrors extends ErrorHandler {
  private final int maxHeaderBytes;

  ProblemErrors(int maxHeaderBytes) {
    this.maxHeaderBytes = maxHeaderBytes;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Object status = request.getAttribute(ERROR_STATUS);
    Answer answer = answer(status instanceof Integer code ? code : 500);
    response.setStatus(answer.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.body().length);
    response.write(true, ByteBuffer.wrap(answer.body()), callback);
    return true;
  }

  /**
   * The problem for a status the server chose.
   *
   * @param status the status
   * @return the answer
   */
  Answer answer(int status) {
    return switch (status) {
      case 400 ->
          Answer.problem(
              400, "MalformedRequest", "Bad request", "the request is not well-formed HTTP/1.1");
      case 408 ->
          Answer.problem(
              408, "RequestTimeout", "Request timeout", "the request did not arrive in time");
      case 413 ->
          Answer.problem(
              413, "BodyTooLarge", "Content too large", "the body is larger than the limit");
      case 414 ->
          Answer.problem(
              414, "UriTooLong", "URI too long", "the request target is longer than the limit");
      case 431 ->
          Answer.problem(
              431,
              "HeadersTooLarge",
              "Request header fields too large",
              "the request line and headers are larger than " + maxHeaderBytes + " bytes");
      case 501 ->
          Answer.problem(
              501,
              "NotImplemented",
              "Not implemented",
              "the request uses a feature the server lacks");
      case 505 ->
          Answer.problem(
              505, "HttpVersionNotSupported", "HTTP version not supported", "use HTTP/1.1");
      default ->
          status >= 400 && status < 500
              ? Answer.problem(status, "BadRequest", "Bad request", "the request was refused")
              : Answer.problem(
                  status, "ServerError", "Server error", "the request failed; it may be retried");
    };
  }
}
