"""Draw the pictures of the example blog's photo post, with Pillow.

    python3 scripts/make_example_photos.py   # writes content/posts/2025-03-15-a-walk-in-pictures/

Three "photos" of made-up landscapes (ridges, a sun, a lake that mirrors them, film grain)
saved as a camera would: 3000 pixels wide, JPEG, with EXIF that holds the camera, the time
and a GPS position, one of them stored on its side with an orientation tag; and a diagram
drawn twice, for the light and the dark theme. The build publishes none of that metadata.
Everything is seeded: re-running writes the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

OUT = Path(__file__).resolve().parent.parent / "content" / "posts" / \
    "2025-03-15-a-walk-in-pictures"
WIDTH, HEIGHT = 3000, 2000


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return r, g, bl


def landscape(seed: int, sky: tuple[tuple[int, int, int], tuple[int, int, int]],
              ridges: list[tuple[int, int, int]], sun: tuple[int, int, int]) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("RGB", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    horizon = int(HEIGHT * 0.62)
    for y in range(horizon):
        draw.line([(0, y), (WIDTH, y)], fill=_mix(sky[0], sky[1], y / horizon))
    sx, sy, sr = rng.randint(WIDTH // 5, WIDTH * 4 // 5), rng.randint(200, horizon // 2), 140
    draw.ellipse((sx - sr, sy - sr, sx + sr, sy + sr), fill=sun)
    for depth, colour in enumerate(ridges):
        base = horizon - 80 * (len(ridges) - depth)
        points = [(0, horizon)]
        height = rng.randint(150, 420)
        for x in range(0, WIDTH + 60, 60):
            height += rng.randint(-70, 70)
            height = max(60, min(520, height))
            points.append((x, base - height + 200))
        points.append((WIDTH, horizon))
        draw.polygon(points, fill=colour)
    sky_part = image.crop((0, 0, WIDTH, horizon))
    mirror = sky_part.transpose(Image.Transpose.FLIP_TOP_BOTTOM).resize((WIDTH, HEIGHT - horizon))
    water = Image.blend(mirror, Image.new("RGB", mirror.size, (20, 40, 70)), 0.45)
    image.paste(water.filter(ImageFilter.GaussianBlur(3)), (0, horizon))
    grain = Image.effect_noise((WIDTH, HEIGHT), 24).convert("RGB")
    return Image.blend(image.filter(ImageFilter.GaussianBlur(1.2)), grain, 0.06)


def camera_exif(when: str, lat: tuple[float, float, float], lon: tuple[float, float, float],
                orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "Example Camera Co."
    exif[0x0110] = "EX-100"
    exif[0x0132] = when
    exif[0x0112] = orientation
    exif[0x8825] = {1: "N", 2: lat, 3: "E", 4: lon}
    return exif.tobytes()


def diagram(dark: bool) -> Image.Image:
    """A small block diagram: input → model → output, in the theme's colours."""
    bg, fg, box = ((22, 24, 28), (228, 230, 234), (45, 49, 57)) if dark else \
        ((255, 255, 255), (26, 29, 35), (238, 241, 245))
    image = Image.new("RGB", (1200, 360), bg)
    draw = ImageDraw.Draw(image)
    for i, _label in enumerate(("input", "model", "output")):
        x = 80 + i * 400
        draw.rounded_rectangle((x, 110, x + 240, 250), radius=24, fill=box, outline=fg,
                               width=4)
        if i < 2:
            draw.line((x + 250, 180, x + 390, 180), fill=fg, width=6)
            draw.polygon([(x + 390, 180), (x + 360, 162), (x + 360, 198)], fill=fg)
    return image


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    photos = [
        ("ridge-at-dawn.jpg", 1, ((250, 190, 150), (255, 236, 210)),
         [(120, 110, 140), (80, 70, 100), (45, 40, 60)], (255, 240, 200),
         "2025:03:15 06:42:10", (46.0, 33.0, 12.0), (7.0, 54.0, 3.0), 1),
        ("blue-hour.jpg", 2, ((30, 50, 110), (150, 120, 170)),
         [(60, 70, 110), (35, 45, 80), (15, 20, 45)], (250, 250, 230),
         "2025:03:15 19:05:44", (46.0, 34.0, 1.0), (7.0, 58.0, 40.0), 1),
        ("noon-lake.jpg", 3, ((90, 160, 230), (200, 225, 245)),
         [(110, 140, 120), (70, 105, 85), (40, 70, 55)], (255, 255, 245),
         "2025:03:15 12:20:05", (46.0, 31.0, 50.0), (7.0, 50.0, 21.0), 6),
    ]
    for name, seed, sky, ridges, sun, when, lat, lon, orientation in photos:
        image = landscape(seed, sky, ridges, sun)
        if orientation == 6:  # stored as the camera held it: on its side, tagged to turn
            image = image.transpose(Image.Transpose.ROTATE_90)
        image.save(OUT / name, "JPEG", quality=88,
                   exif=camera_exif(when, lat, lon, orientation))
    diagram(dark=False).save(OUT / "pipeline-light.png", "PNG", optimize=True)
    diagram(dark=True).save(OUT / "pipeline-dark.png", "PNG", optimize=True)


if __name__ == "__main__":
    main()
