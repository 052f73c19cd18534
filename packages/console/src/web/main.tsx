/** The console page's entry: esbuild bundles it, Preact and the stylesheet into dist/assets/. */
import { render } from 'preact';
import { App } from './app.js';
import './console.css';

const root = document.getElementById('app');
if (root === null) throw new Error('the page has no #app element');
render(<App />, root);
