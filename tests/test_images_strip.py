"""Taking metadata out of JPEG, PNG and WebP files without touching their pixels."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from blogbuild.images.avif import strip_avif
from blogbuild.images.original import stripped
from blogbuild.images.strip import Unreadable, strip
from image_helpers import (
    SECRET,
    avif_picture,
    jpeg_photo,
    png_picture,
    srgb_profile,
    webp_picture,
)

MAKERS = {"jpeg": jpeg_photo, "png": png_picture, "webp": webp_picture}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_metadata_goes_and_the_pixels_and_colour_profile_stay(kind: str) -> None:
    data = MAKERS[kind]()
    assert SECRET in data  # the helpers wrote GPS, XMP and comments
    out = strip(data)
    assert SECRET not in out
    before, after = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(out))
    after.load()  # whole and decodable
    assert after.tobytes() == before.tobytes()
    assert after.info.get("icc_profile") == srgb_profile()
    assert dict(after.getexif()) == {}
    assert 0x8825 not in after.getexif()  # no GPS block


@pytest.mark.parametrize("kind", ["jpeg", "png", "webp"])
def test_an_orientation_is_all_that_is_left_of_the_exif(kind: str) -> None:
    data = MAKERS[kind]()
    out = strip(data, orientation=6)
    assert SECRET not in out
    assert dict(Image.open(io.BytesIO(out)).getexif()) == {0x0112: 6}


def test_a_second_picture_after_the_first_is_dropped() -> None:
    """Phones write a second JPEG (MPO, a depth map) after the first, with its own EXIF."""
    out = strip(jpeg_photo(300, 200) + jpeg_photo(64, 64))
    assert SECRET not in out
    assert out.endswith(b"\xff\xd9")
    assert Image.open(io.BytesIO(out)).size == (300, 200)


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_cut_file_is_unreadable(kind: str) -> None:
    data = MAKERS[kind]()
    with pytest.raises(Unreadable):
        strip(data[: len(data) * 2 // 3])


def test_other_bytes_are_unreadable() -> None:
    with pytest.raises(Unreadable):
        strip(b"GIF89a" + bytes(40))


@settings(max_examples=300, deadline=2000)
@given(kind=st.sampled_from(sorted(MAKERS)), cut=st.integers(0, 10_000),
       flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6))
def test_damaged_files_never_raise_anything_else(kind: str, cut: int,
                                                 flips: list[tuple[int, int]]) -> None:
    data = bytearray(_SMALL[kind][: max(12, len(_SMALL[kind]) - cut)])
    for at, value in flips:
        data[at % len(data)] = value
    try:
        out = strip(bytes(data))
    except Unreadable:
        return
    assert len(out) <= len(data) + 64  # at most the orientation block was added


_SMALL = {"jpeg": jpeg_photo(64, 48), "png": png_picture(40, 30), "webp": webp_picture(40, 30)}


@pytest.mark.parametrize("frames", [1, 3])
def test_an_avif_loses_its_exif_and_xmp_items_and_keeps_its_pictures(frames: int) -> None:
    """AVIF's metadata are items of the file: they leave its lists, zeros take their bytes,
    and every other byte stays where it was (an image sequence's samples too)."""
    data = avif_picture(orientation=6 if frames == 1 else 1, frames=frames)
    assert SECRET in data and b"xpacket" in data
    out = stripped(data)
    assert SECRET not in out and b"xpacket" not in out and b"Exif\x00" not in out
    assert len(out) == len(data)
    before, after = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(out))
    assert getattr(after, "n_frames", 1) == frames
    for frame in range(frames):
        before.seek(frame)
        after.seek(frame)
        assert after.convert("RGBA").tobytes() == before.convert("RGBA").tobytes()
    assert "xmp" not in after.info
    # What is left of the EXIF is the rotation, which Pillow reads from the container.
    assert dict(after.getexif()) == ({0x0112: 6} if frames == 1 else {})


def test_an_avif_without_metadata_is_left_as_it_is() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(buffer, "AVIF")
    assert strip_avif(buffer.getvalue()) == buffer.getvalue()


@settings(max_examples=300, deadline=2000)
@given(cut=st.integers(0, 2_000),
       flips=st.lists(st.tuples(st.integers(0, 2_000), st.integers(0, 255)), max_size=6))
def test_damaged_avif_files_never_raise_anything_else(cut: int,
                                                      flips: list[tuple[int, int]]) -> None:
    data = bytearray(_AVIF[: max(40, len(_AVIF) - cut)])
    for at, value in flips:
        data[at % len(data)] = value
    for partial in (False, True):
        try:
            out = strip_avif(bytes(data), partial=partial)
        except Unreadable:
            continue
        assert len(out) == len(data)


_AVIF = avif_picture(16, 12)


@settings(max_examples=200, deadline=2000)
@given(kind=st.sampled_from(["jpeg", "png"]), cut=st.integers(1, 10_000))
def test_a_file_cut_short_is_stripped_as_far_as_it_goes(kind: str, cut: int) -> None:
    """An interrupted copy: what is there is what a whole file's stripping starts with, its
    metadata gone wherever the cut falls."""
    whole = _SMALL[kind]
    data = whole[: max(12, len(whole) - cut)]
    out = strip(data, partial=True)
    assert SECRET not in out
    assert strip(whole).startswith(out)


def test_a_webp_cut_short_is_stripped_as_far_as_it_goes() -> None:
    data = webp_picture(120, 80)
    cut = data[: len(data) * 3 // 4]
    with pytest.raises(Unreadable):
        strip(cut)
    out = strip(cut, partial=True)
    assert SECRET not in out and b"XMP " not in out and out[8:12] == b"WEBP"
