#!/bin/sh
# nginx (Debian's nginx-light) in front of ToxGraph's serve processes, in the toxgraph-services
# image: one address (the stack's --base-url) for all of them, requests shared round-robin.
#   UPSTREAMS   "serve1:8080 serve2:8080"
#   BODY_LIMIT  (65m: ToxGraph's own limits are 50 MiB for bodies, 64 MiB for model files)
set -eu
DIR=/var/lib/toxgraph/nginx
mkdir -p "$DIR"
servers=""
for upstream in ${UPSTREAMS:-serve1:8080 serve2:8080}; do
  servers="$servers    server $upstream max_fails=3 fail_timeout=10s;
"
done
cat > "$DIR/nginx.conf" <<CONF
worker_processes 1;
pid $DIR/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $DIR/body;
  proxy_temp_path $DIR/proxy;
  fastcgi_temp_path $DIR/fastcgi;
  uwsgi_temp_path $DIR/uwsgi;
  scgi_temp_path $DIR/scgi;
  upstream toxgraph {
$servers    keepalive 16;
  }
  server {
    listen 8080;
    client_max_body_size ${BODY_LIMIT:-65m};
    proxy_request_buffering off;
    location / {
      proxy_pass http://toxgraph;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_read_timeout 600s;
      proxy_send_timeout 600s;
      proxy_next_upstream error timeout;
    }
  }
}
CONF
exec nginx -c "$DIR/nginx.conf" -g 'daemon off;'
