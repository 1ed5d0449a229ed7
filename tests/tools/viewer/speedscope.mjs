// SPDX-License-Identifier: MIT
//
// ulsm-trace's JSON as a user sees it: loaded into speedscope (its npm
// release, opened from the file system as its own command line does) in
// Debian's chromium, headless, driven by puppeteer-core. Run by
// tests/tools/viewer/speedscope.sh, which installs them; not by make check.
//
//	node speedscope.mjs SPEEDSCOPE_DIR JSON PNG PROCESS THREAD...
//
// It fails on any warning or error of the page's scripts (speedscope
// warns once per slice it cannot pair, the fault this was written for),
// an uncaught exception, a dialog, a request that fails, or an import
// that does not end in a profile per thread; then it checks that the
// profiles are the threads, by name ("PROCESS (pid N), THREAD (tid T)"),
// and takes a screenshot of the first. The browser's own notes from its
// software GPU (no GPU here: "GL Driver Message ... GPU stall due to
// ReadPixels", source "rendering") are printed but do not fail it: they
// say nothing of the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [dist, json, png, proc, ...threads] = process.argv.slice(2);
if (!threads.length) {
	console.error('usage: node speedscope.mjs SPEEDSCOPE_DIR JSON PNG PROCESS THREAD...');
	process.exit(2);
}
const problems = [];
const notes = [];
const tmp = fs.mkdtempSync(path.join(path.dirname(path.resolve(png)), 'speedscope-'));

// What speedscope's command line does: a script that hands it the file.
const loader = path.join(tmp, 'profile.js');
fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(json))}, ` +
		 `${JSON.stringify(fs.readFileSync(json).toString('base64'))})`);

const browser = await puppeteer.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	// An empty profile, nothing fetched or updated behind our back, and
	// software WebGL asked for (else chromium warns that it falls back).
	userDataDir: path.join(tmp, 'user-data'),
	args: ['--headless', '--no-sandbox', '--disable-gpu',
	       '--disable-background-networking', '--disable-component-update',
	       '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader'],
});
let failed = false;
try {
	const page = await browser.newPage();
	const cdp = await page.createCDPSession();

	await cdp.send('Runtime.enable');
	await cdp.send('Log.enable');
	cdp.on('Runtime.consoleAPICalled', (e) => {
		const text = e.args.map((a) => a.value ?? a.description).join(' ');

		if (['warning', 'error', 'assert'].includes(e.type))
			problems.push(`console.${e.type}: ${text}`);
	});
	cdp.on('Runtime.exceptionThrown', (e) =>
		problems.push(`exception: ${e.exceptionDetails.exception?.description ?? e.exceptionDetails.text}`));
	cdp.on('Log.entryAdded', ({ entry }) => {
		if (entry.level !== 'warning' && entry.level !== 'error')
			return;
		if (entry.source === 'rendering' && /GL Driver Message/.test(entry.text))
			notes.push(entry.text);
		else
			problems.push(`${entry.source} ${entry.level}: ${entry.text}`);
	});
	page.on('dialog', async (d) => {
		problems.push(`dialog: ${d.message()}`);
		await d.dismiss();
	});
	page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}: ${r.failure()?.errorText}`));

	await page.setViewport({ width: 1400, height: 300 });
	await page.goto(`file://${path.resolve(dist, 'index.html')}#localProfilePath=${loader}`);
	// Loaded: the toolbar names a profile and says "(1/N)".
	await page.waitForFunction(() => /\(1\/\d+\)/.test(document.body.innerText), { timeout: 30000 });
	const body = await page.evaluate(() => document.body.innerText);
	const count = Number(/\(1\/(\d+)\)/.exec(body)[1]);
	const names = [];

	// 'n' shows the next profile: one per thread.
	for (let i = 1; i <= count; i++) {
		const text = await page.evaluate(() => document.body.innerText);
		const m = new RegExp(`^(.*) \\(${i}/${count}\\)$`, 'm').exec(text);

		names.push(m ? m[1] : `(no profile ${i}/${count})`);
		if (i == count)
			break;
		await page.keyboard.press('n');
		await page.waitForFunction((k, n) => document.body.innerText.includes(`(${k}/${n})`),
					   { timeout: 5000 }, i + 1, count);
	}
	console.log(`speedscope: ${count} profiles:\n  ${names.join('\n  ')}`);
	if (count !== threads.length)
		problems.push(`${count} profiles, not one per thread (${threads.length})`);
	for (const t of threads) {
		const re = new RegExp(`^${proc} \\(pid \\d+\\), ${t} \\(tid \\d+\\)$`);

		if (!names.some((n) => re.test(n)))
			problems.push(`no profile named "${proc} (pid N), ${t} (tid T)"`);
	}
	// Back to the first ('p': the previous), as the user first sees it.
	for (let i = 1; i < count; i++)
		await page.keyboard.press('p');
	await page.waitForFunction((n) => document.body.innerText.includes(`(1/${n})`), { timeout: 5000 }, count);
	await new Promise((r) => setTimeout(r, 500));
	await page.screenshot({ path: png });
	console.log(`speedscope: screenshot ${png}`);
} catch (e) {
	problems.push(`${e.message}`);
	failed = true;
} finally {
	await browser.close();
	fs.rmSync(tmp, { recursive: true, force: true });
}
if (notes.length)
	console.log(`speedscope: ${notes.length} notes of the software GPU, not counted (${notes[0].slice(0, 90)}...)`);
if (problems.length || failed) {
	console.error(`speedscope: ${problems.length} problems loading ${json}:`);
	for (const p of problems.slice(0, 20))
		console.error(`  ${p.slice(0, 300)}`);
	if (problems.length > 20)
		console.error(`  ... and ${problems.length - 20} more`);
	process.exit(1);
}
console.log(`speedscope: ${json} loads with no warning and no error`);
