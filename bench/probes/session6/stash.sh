#!/bin/bash
# stash.sh out|in: move what the device does not need out of .carry/bconv (carry limit), or back
cd /work/main
mkdir -p /tmp/objstash /tmp/stash2
if [ "$1" = out ]; then
  mv .carry/bconv/gpu/*.o /tmp/objstash/ 2>/dev/null
  [ -d .carry/bconv/tests/engine ] && rm -rf /tmp/stash2/engine && mv .carry/bconv/tests/engine /tmp/stash2/
else
  mv -n /tmp/objstash/*.o .carry/bconv/gpu/ 2>/dev/null; rm -f /tmp/objstash/*.o  # never over fresher objects
  [ -d /tmp/stash2/engine ] && rm -rf .carry/bconv/tests/engine && mv /tmp/stash2/engine .carry/bconv/tests/
fi
du -sh .carry/bconv
