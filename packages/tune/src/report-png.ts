/**
 * `report.png` next to `report.html`, for pasting into tickets: Debian's `chromium` package,
 * headless, renders the page twice — once to read its full size from the rendered DOM (the
 * page records it in `data-height` and `data-width`), once to screenshot it at that size. Without Chromium
 * there is no PNG, and the caller says why once.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const PNG_WIDTH = 1280;
/** A page taller than this is cut off: Chromium's screenshots grow slow and huge beyond it. */
const MAX_HEIGHT = 16_000;
const RUN_TIMEOUT_MS = 60_000;
const CHROMIUM_NAMES = ['chromium', 'chromium-browser'];

export type PngOutcome = { readonly png: string } | { readonly missing: string };

/** The first Chromium on PATH; null when there is none. */
export function findChromium(path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter).filter((d) => d !== '')) {
    for (const name of CHROMIUM_NAMES) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not in this directory
      }
    }
  }
  return null;
}

/** The arguments every headless run gets; root needs --no-sandbox (Chromium refuses to sandbox as root). */
export function headlessArgs(profileDir: string, height: number, width = PNG_WIDTH): string[] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return [
    '--headless=new',
    '--disable-gpu',
    '--hide-scrollbars',
    '--no-first-run',
    `--user-data-dir=${profileDir}`,
    `--window-size=${width},${height}`,
    ...(root ? ['--no-sandbox'] : []),
  ];
}

export function renderPng(htmlPath: string, pngPath: string, chromium: string | null = findChromium()): PngOutcome {
  if (chromium === null) return { missing: 'chromium is not installed (Debian: apt-get install chromium)' };
  const url = pathToFileURL(resolve(htmlPath)).href;
  const profile = mkdtempSync(join(tmpdir(), 'sluice-tune-chromium-'));
  try {
    const dom = spawnSync(chromium, [...headlessArgs(profile, 800), '--dump-dom', url], {
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    const height = Number(/data-height="(\d+)"/.exec(dom.stdout ?? '')?.[1]);
    // A wide table makes the page wider than the window; the PNG takes all of it.
    const width = Math.max(PNG_WIDTH, Number(/data-width="(\d+)"/.exec(dom.stdout ?? '')?.[1]) || 0);
    if (dom.status !== 0 || !(height > 0)) return { missing: `chromium did not render ${htmlPath} (${failure(dom)})` };
    const shot = spawnSync(
      chromium,
      [...headlessArgs(profile, Math.min(height, MAX_HEIGHT), Math.min(width, MAX_HEIGHT)), `--screenshot=${resolve(pngPath)}`, url],
      {
        encoding: 'utf8',
        timeout: RUN_TIMEOUT_MS,
      },
    );
    if (shot.status !== 0) return { missing: `chromium failed to screenshot ${htmlPath} (${failure(shot)})` };
    return { png: pngPath };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

function failure(run: ReturnType<typeof spawnSync>): string {
  if (run.error !== undefined) return run.error.message;
  const lastLine =
    String(run.stderr ?? '')
      .trim()
      .split('\n')
      .at(-1) ?? '';
  return `exit ${run.status ?? run.signal}${lastLine === '' ? '' : `: ${lastLine}`}`;
}
