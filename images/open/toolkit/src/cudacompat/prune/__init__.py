"""Shrink a ROCm library tree to chosen AMD gfx targets, and prove nothing else changed.

Runs inside the image during ``docker build``; standard library only (``python3 -S`` works),
with the folder holding ``cudacompat`` on PYTHONPATH (/opt/moatbridge/lib in the image)::

    python3 -m cudacompat.prune --keep gfx1030[,gfx1100...] [--lib-dir DIR] [--report FILE.json] [--dry-run]
    python3 -m cudacompat.prune --verify-only --keep gfx1030[,gfx1100...] [--lib-dir DIR]

Code is kept for a target that a kept GPU can load, as the offload bundler and the ROCm loader
decide: code for the GPU's own processor (any xnack/sramecc variant: the device's mode is not
known at build time), or for the generic processor it belongs to (``gfx11-generic`` serves
gfx1100 ... gfx1153; the table is cudacompat.targets'). ``--keep gfx1201`` keeps gfx1201 and
gfx12-generic code and drops gfx11-generic code. Code for names this script does not know
stays. Two kinds of device code are pruned:

* Per-target files such as ``Kernels.so-000-gfx90a-xnack+.hsaco``, ``TensileLibrary_gfx1030.co``
  or ``TensileLibrary_gfx11-generic.co`` are deleted when no target named in the file name can
  be loaded. Files that name no processor (``TensileLibrary.dat``), name one ambiguously
  (``gfx90a68.kdb``) or name a generic processor this script does not know, stay.
* Clang offload bundles in the ``.hip_fatbin`` section of ELF files: each uncompressed bundle
  gets a shorter header, written at the bundle start, that lists the host and the kept targets
  with their original offsets and sizes. The rest of the old header and every dropped code
  object are zeroed. Nothing moves and the file keeps its size: the section is allocated, so
  moving it would break addresses. The zeros compress to almost nothing in the image layer.
* Compressed bundles (``CCOB``, clang's ``CompressedOffloadBundle``, versions 1 to 3, zlib or
  zstd): the bundle is decompressed, a new compact bundle (LLVM's layout: header, then the host
  and kept code objects at 4096-byte boundaries) is compressed with the same method and written
  at the old one's start under a new header (same version, new sizes, LLVM's hash: the low 64
  bits of the MD5 of the uncompressed bundle); the rest of the old compressed bytes are zeroed.
  zstd needs Python's ``compression.zstd`` (3.14) or the ``zstd`` tool on PATH
  (``--tools-needed`` prints the Debian packages missing); without one, or when a bundle cannot
  be read, it is left as it is and reported, never an error.

Every rewrite happens on a temporary copy next to the file and must pass a proof before it
replaces the original: each kept code object hashes the same before and after, the whole file
hashes the same with the rewritten ranges masked out, the new headers read back as planned,
the zeroed ranges read back as zeros, every kept target would load from each bundle the same
code objects (triple, place and bytes) as before, and no bundle lists code no kept target
loads. A rewritten compressed bundle is decompressed again from the copy: its header must state
the sizes and hash of what it holds, and every kept target must load byte-identical code
objects (triple and bytes; the places move) as from the original's decompressed bundle.
The report (``--report``) counts, per file and kept target, the bundles whose code for that
target is its own processor's or a generic processor's (``"loads"``), and the compressed
bundles rewritten and left as they were (with the reason).

The modules, each importing only those above it in this list (and ``cudacompat.targets``):

* ``ranges``: merging and subtracting byte ranges; walking a large buffer in steps.
* ``entries``: the code objects a bundle lists, and which of them a kept GPU loads.
* ``bundles``: uncompressed bundles: reading a header, building a new one.
* ``compressed``: compressed bundles: their headers, the zlib/zstd codec, the bundle inside.
* ``section``: the ``.hip_fatbin`` section of an ELF file and the bundles in it.
* ``plans``: what a rewrite writes and zeroes, and writing it into a copy.
* ``proofs``: the checks a rewritten copy must pass before it replaces the original.
* ``inventory``: what a library tree holds, and what in it no kept target loads.
* ``rewrite``: pruning the tree: files rewritten through proved copies, per-target files deleted.
* ``cli``: the command line, the summary it prints and its exit statuses.
"""
