{
  "variables": {
    "sluice_static%": 0,
    "sluice_snappy%": "<!(pkg-config --exists snappy && echo 1 || echo 0)",
    "sluice_lz4%": "<!(pkg-config --exists liblz4 && echo 1 || echo 0)",
    "sluice_zstd%": "<!(pkg-config --exists libzstd && echo 1 || echo 0)",
    "sluice_zlib%": "<!(pkg-config --exists zlib && echo 1 || echo 0)"
  },
  "targets": [
    {
      "target_name": "sluice_native",
      "sources": [
        "native/addon.cc",
        "native/allocator.cc",
        "native/copy_bytes.cc",
        "native/env_state.cc",
        "native/errno_error.cc",
        "native/crc32c.cc",
        "native/crc32_gzip.cc",
        "native/send_file.cc",
        "native/mapped_file.cc",
        "native/record_scan.cc",
        "native/codec.cc",
        "native/codec_gzip.cc",
        "native/codec_snappy.cc",
        "native/codec_lz4.cc",
        "native/codec_zstd.cc",
        "native/codecs_binding.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O3", "-Wall", "-Wextra"],
      "conditions": [
        # The prebuild (npm run build:prebuild) links each codec's static archive (-l:libX.a, found
        # on the linker's path: Debian's libzstd.pc names a libdir without it), so a host needs no
        # codec package; their symbols stay hidden so that the zlib the node binary exports
        # cannot take the place of the one the addon was built against.
        ["sluice_static==1", {"ldflags": ["-Wl,--exclude-libs,ALL"]}],
        ["sluice_snappy==1", {
          "defines": ["SLUICE_HAVE_SNAPPY"],
          "cflags_cc": ["<!@(pkg-config --cflags snappy)"],
          "conditions": [["sluice_static==1",
            {"libraries": ["<!@(pkg-config --libs-only-L snappy)", "-l:libsnappy.a"]},
            {"libraries": ["<!@(pkg-config --libs snappy)"]}]]
        }],
        ["sluice_lz4==1", {
          "defines": ["SLUICE_HAVE_LZ4"],
          "cflags_cc": ["<!@(pkg-config --cflags liblz4)"],
          "conditions": [["sluice_static==1",
            {"libraries": ["<!@(pkg-config --libs-only-L liblz4)", "-l:liblz4.a"]},
            {"libraries": ["<!@(pkg-config --libs liblz4)"]}]]
        }],
        ["sluice_zstd==1", {
          "defines": ["SLUICE_HAVE_ZSTD"],
          "cflags_cc": ["<!@(pkg-config --cflags libzstd)"],
          "conditions": [["sluice_static==1",
            {"libraries": ["<!@(pkg-config --libs-only-L libzstd)", "-l:libzstd.a"]},
            {"libraries": ["<!@(pkg-config --libs libzstd)"]}]]
        }],
        ["sluice_zlib==1", {
          "defines": ["SLUICE_HAVE_ZLIB"],
          "cflags_cc": ["<!@(pkg-config --cflags zlib)"],
          "conditions": [["sluice_static==1",
            {"libraries": ["<!@(pkg-config --libs-only-L zlib)", "-l:libz.a"]},
            {"libraries": ["<!@(pkg-config --libs zlib)"]}]]
        }]
      ]
    }
  ]
}
