print("sxk")
