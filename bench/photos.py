"""Benchmark: a post with 20 photos of 12 megapixels, as a phone and Lighthouse load it.

    python bench/photos.py [--photos 20] [--keep DIR] [--no-lighthouse]
                           [--formats avif,webp]

Makes the photos (4000 × 3000 JPEGs with grain, as a camera writes them, EXIF and GPS
included), builds a one-post blog of them twice and prints: the clean build's time per
photo; how many photos the second build encoded (none: it starts without the output
folder, from the cache, as a deploy does); the bytes a 360-pixel-wide phone (device
pixel ratio 2) downloads for the post's pictures as it scrolls to the end, against the
photos' own bytes; and Lighthouse's performance score and image audits of the page
(mobile, its defaults). Chromium is Debian's; Lighthouse the npm package the tests use.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from localserver import serve_folder
from PIL import Image, ImageDraw, ImageFilter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHROMIUM = "/usr/bin/chromium"
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
IMAGE_AUDITS = ("uses-responsive-images", "modern-image-formats", "unsized-images",
                "offscreen-images", "uses-optimized-images", "image-aspect-ratio",
                "image-size-responsive", "lcp-lazy-loaded", "cumulative-layout-shift")


def photo(seed: int) -> bytes:
    """A 12-megapixel "photo": sky, hills, shapes and grain, JPEG quality 92 with EXIF."""
    rng = random.Random(seed)
    width, height = 4000, 3000
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for _ in range(120):
        x, y, r = rng.randrange(width), rng.randrange(height), rng.randrange(40, 500)
        draw.ellipse((x - r, y - r, x + r, y + r),
                     fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    image = image.filter(ImageFilter.GaussianBlur(4))
    grain = Image.effect_noise((width, height), 48).convert("RGB")
    image = Image.blend(image, grain, 0.15)
    exif = Image.Exif()
    exif[0x010F] = "Bench camera"
    exif[0x8825] = {1: "N", 2: (48.0, 51.0, 24.0), 3: "E", 4: (2.0, 21.0, 8.0)}
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92, exif=exif.tobytes())
    return buffer.getvalue()


def make_site(root: Path, count: int, formats: str) -> int:
    post = root / "content" / "posts" / "photos"
    post.mkdir(parents=True)
    (root / "site.yaml").write_text("title: Photos\nbase_url: http://127.0.0.1:8000/\n"
                                    f"search: false\nimages:\n  formats: [{formats}]\n")
    total = 0
    lines = ["---", "title: Twenty photos", "date: 2026-01-01",
             "description: A photo post for the benchmark.", "---", "",
             "Twenty photos of a made-up trip, each as the camera wrote it."]
    for n in range(count):
        data = photo(n)
        (post / f"photo-{n:02d}.jpg").write_bytes(data)
        total += len(data)
        lines += ["", f"Photo {n + 1}: some words about where it was taken.", "",
                  f"![Photo {n + 1} of the trip](photo-{n:02d}.jpg)"]
    (post / "index.md").write_text("\n".join(lines) + "\n")
    return total


def build(root: Path) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", "import json, sys; from blogbuild.commands.build import build;"
         " r = build(sys.argv[1]); print(json.dumps({'encoded': r.images_encoded,"
         " 'diagnostics': [str(d) for d in r.diagnostics]}))", str(root / "site.yaml")],
        capture_output=True, text=True, check=True)
    return time.perf_counter() - start, json.loads(result.stdout.strip().splitlines()[-1])


def phone_bytes(url: str) -> tuple[int, int]:
    """Bytes of the pictures a 360-pixel phone (DPR 2) downloads scrolling to the end,
    and how many pictures."""
    from playwright.sync_api import sync_playwright

    sizes: dict[str, int] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 360, "height": 740},
                                device_scale_factor=2, is_mobile=True)

        def on_response(response):  # type: ignore[no-untyped-def]
            if response.request.resource_type == "image":
                body = response.body()
                sizes[response.url] = len(body)
        page.on("response", on_response)
        page.goto(url)
        height = int(page.evaluate("document.body.scrollHeight"))
        for y in range(0, height + 740, 500):
            page.evaluate(f"window.scrollTo(0, {y})")
            page.wait_for_timeout(60)
        page.wait_for_load_state("networkidle")
        browser.close()
    photos = {u: s for u, s in sizes.items() if "/photo-" in u}
    return sum(photos.values()), len(photos)


def lighthouse(url: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        subprocess.run([str(LIGHTHOUSE), url, "--quiet", "--output=json",
                        f"--output-path={out}", "--only-categories=performance",
                        "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                       env={**os.environ, "CHROME_PATH": CHROMIUM}, check=True, timeout=300)
        report = json.loads(out.read_text())
    audits = report["audits"]
    return {"performance": report["categories"]["performance"]["score"],
            **{name: audits[name]["score"] for name in IMAGE_AUDITS if name in audits},
            "cls": audits["cumulative-layout-shift"]["numericValue"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="build here and leave it (default: a "
                        "temporary folder)")
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--formats", default="webp", help="images.formats of the site, "
                        "comma-separated (default: webp; e.g. avif,webp)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="blogbuild-photos-"))
    shutil.rmtree(root, ignore_errors=True)
    original = make_site(root, args.photos, args.formats)
    clean, first = build(root)
    shutil.rmtree(root / "_site")  # a deploy: the cache restored, the output made anew
    again, second = build(root)
    print(f"{args.photos} photos, {original / 1e6:.1f} MB as the camera wrote them")
    print(f"clean build {clean:.1f} s ({clean / args.photos:.2f} s per photo, "
          f"{first['encoded']} encoded); no output but the cache {again:.2f} s "
          f"({second['encoded']} encoded)")
    if first["diagnostics"]:
        print("diagnostics:", *first["diagnostics"], sep="\n  ")
    server, url = serve_folder(root / "_site", 8000)  # the site's base URL
    try:
        page = url + "posts/photos/"
        loaded, count = phone_bytes(page)
        print(f"360 px phone (DPR 2), scrolled to the end: {count} pictures, "
              f"{loaded / 1e3:.0f} kB = {100 * loaded / original:.1f} % of the originals")
        if not args.no_lighthouse:
            print("Lighthouse (mobile):", json.dumps(lighthouse(page)))
    finally:
        server.shutdown()
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
