# add them
echo $((2 + 3))
