/** Every API handler the broker registers; the registry derives ApiVersions from this list. */
import type { RegisteredApi } from './handler.js';
import { apiVersionsHandler } from './18-api-versions.js';

export const HANDLERS: readonly RegisteredApi[] = [apiVersionsHandler];
