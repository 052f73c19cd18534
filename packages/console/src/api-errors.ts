/** A request the console refuses, with the HTTP status it answers. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
