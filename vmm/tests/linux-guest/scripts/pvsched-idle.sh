# Each CPU's registered area, then a second of idle.
pvdev show
sleep 1
