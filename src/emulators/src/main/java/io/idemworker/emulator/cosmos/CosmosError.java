package io.idemworker.emulator.cosmos;

/** An error answer in the service's shape: status, sub-status and {@code {"code","message"}}. */
class CosmosError extends RuntimeException {
  final int status;
  final int subStatus;
  final String code;

  CosmosError(int status, int subStatus, String message) {
    super(message, null, false, false);
    this.status = status;
    this.subStatus = subStatus;
    this.code = codeFor(status);
  }

  CosmosError(int status, String message) {
    this(status, 0, message);
  }

  static CosmosError badRequest(String message) {
    return new CosmosError(400, message);
  }

  static CosmosError notFound(String message) {
    return new CosmosError(404, message);
  }

  static CosmosError notImplemented(String what) {
    return new CosmosError(
        501,
        what
            + " is not implemented by the idemworker Cosmos DB emulator (it serves accounts,"
            + " databases, containers, item point operations, patch, transactional batches, the"
            + " latest-version change feed, queries, offers, in gateway mode).");
  }

  static String codeFor(int status) {
    return switch (status) {
      case 400 -> "BadRequest";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "NotFound";
      case 405 -> "MethodNotAllowed";
      case 408 -> "RequestTimeout";
      case 409 -> "Conflict";
      case 410 -> "Gone";
      case 412 -> "PreconditionFailed";
      case 413 -> "RequestEntityTooLarge";
      case 424 -> "FailedDependency";
      case 429 -> "TooManyRequests";
      case 449 -> "RetryWith";
      case 500 -> "InternalServerError";
      case 501 -> "NotImplemented";
      case 503 -> "ServiceUnavailable";
      default -> status >= 500 ? "ServiceError" : "Error" + status;
    };
  }
}
