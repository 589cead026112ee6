import { build } from 'esbuild';
const ext = process.argv.slice(2);
const r = await build({ bundle: true, platform: 'node', format: 'esm', target: 'node22', minify: true, metafile: true, write: true, outfile: 'bench/.out/x.mjs',
  mainFields: ['module','main'], external: ext, entryPoints: ['functions/client/handler.ts'], tsconfig: 'tsconfig.json', logLevel: 'error',
  banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" } });
const out = Object.values(r.metafile.outputs)[0];
console.log('bytes', out.bytes);
const byPkg = {};
for (const [f, v] of Object.entries(out.inputs)) { const m = f.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1] : 'src'; byPkg[k] = (byPkg[k]||0) + v.bytesInOutput; }
console.log(Object.entries(byPkg).sort((a,b)=>b[1]-a[1]).slice(0,40));
