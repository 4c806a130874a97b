{
  "targets": [
    {
      "target_name": "sip_udp",
      "sources": ["sip_udp.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-std=gnu11"],
      "libraries": ["-lpthread"]
    }
  ]
}
