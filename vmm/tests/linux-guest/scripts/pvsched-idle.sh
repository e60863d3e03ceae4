# A second of idle.
sleep 1
