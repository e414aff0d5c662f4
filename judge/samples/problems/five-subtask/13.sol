P
