import BookstoreServer; import NetLayer; print("hi")
