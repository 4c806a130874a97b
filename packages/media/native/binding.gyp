{
  "targets": [
    {
      "target_name": "rtp_sockets",
      "sources": ["rtp_sockets.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
