module moving_sum4 (
    input  wire       clk,
    input  wire       rst,
    input  wire       valid,
    input  wire [7:0] x,
    output wire [9:0] sum
);
    reg [7:0] w0, w1, w2, w3;   // w0 is the newest sample

    always @(posedge clk) begin
        if (rst) begin
            w0 <= 8'd0;
            w1 <= 8'd0;
            w2 <= 8'd0;
            w3 <= 8'd0;
        end else if (valid) begin
            w0 <= x;
            w1 <= w0;
            w2 <= w1;
            w3 <= w2;
        end
    end

    assign sum = {2'b00, w0} + {2'b00, w1} + {2'b00, w2} + {2'b00, w3};
endmodule
