// Fails when the web app's TypeScript modules import each other in a circle.
//
//   node scripts/check-import-cycles.mjs [DIR...]     (default: src e2e)
//
// Every relative import counts — `import type` too, as a dependency a reader must follow — read
// by TypeScript's own pre-processor (ts.preProcessFile); imports of packages are not followed.
// The circles are the strongly connected components of that graph (Tarjan); each is printed
// with one cycle through it, and the exit code is 1 when there is any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(resolve(path));
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile())
      return candidate;
  }
  return null;
}

export function importGraph(dirs) {
  const graph = new Map();
  for (const file of dirs.flatMap(sourceFiles)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles.map((f) => resolveImport(file, f.fileName)).filter(Boolean);
    graph.set(file, new Set(targets.filter((t) => t !== file)));
  }
  for (const targets of graph.values())
    for (const t of targets) if (!graph.has(t)) graph.set(t, new Set());
  return graph;
}

/** Strongly connected components with more than one module (Tarjan, iterative). */
export function circles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const found = [];
  let counter = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work = [[root, [...graph.get(root)], 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      if (frame[2] < next.length) {
        const w = next[frame[2]++];
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push([w, [...graph.get(w)], 0]);
        } else if (onStack.has(w)) {
          low.set(node, Math.min(low.get(node), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

/** One cycle inside a component: a shortest path from its first module back to itself. */
function cycleThrough(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    for (const w of graph.get(node)) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let at = node; at !== null; at = previous.get(at)) path.unshift(at);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, node);
        queue.push(w);
      }
    }
  }
  return component;
}

const here = dirname(new URL(import.meta.url).pathname);
const root = resolve(here, '..');
const args = process.argv.slice(2);
const dirs = (args.length ? args : ['src', 'e2e']).map((d) => resolve(root, d)).filter(existsSync);
const graph = importGraph(dirs);
const found = circles(graph);
for (const component of found) {
  const names = (files) => files.map((f) => relative(root, f));
  console.error(`import circle among ${names(component).join(', ')}`);
  console.error(`  for example ${names(cycleThrough(graph, component)).join(' -> ')}`);
}
if (found.length) {
  console.error(`${found.length} import circle(s) among ${graph.size} modules`);
  process.exit(1);
}
console.log(`no import circle among ${graph.size} modules`);
