/**
 * The page the console serves: one HTML shell and the bundle that esbuild built into the
 * package's `dist/assets/` (`npm run bundle`), read once at start and served from memory. Nothing
 * is loaded from elsewhere: the page works offline and behind any firewall.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** Thrown at start when the bundle was not built. */
export class AssetsMissingError extends Error {
  constructor(path: string) {
    super(`the console's page is not built (${path} is missing): run npm run build:console`);
    this.name = 'AssetsMissingError';
  }
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sluice console</title>
<link rel="stylesheet" href="/assets/console.css">
<script type="module" src="/assets/console.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`;

/** dist/src/assets.js → dist/assets/. */
const ASSETS_DIR = new URL('../assets/', import.meta.url);

function bundled(name: string, contentType: string): Asset {
  const path = fileURLToPath(new URL(name, ASSETS_DIR));
  if (!existsSync(path)) throw new AssetsMissingError(path);
  return { contentType, body: readFileSync(path) };
}

/** The served files by URL path. */
export function loadAssets(): ReadonlyMap<string, Asset> {
  return new Map([
    ['/', { contentType: 'text/html; charset=utf-8', body: Buffer.from(INDEX_HTML) }],
    ['/assets/console.js', bundled('console.js', 'text/javascript; charset=utf-8')],
    ['/assets/console.css', bundled('console.css', 'text/css; charset=utf-8')],
  ]);
}
