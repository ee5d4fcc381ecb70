module crc8_byte (
    input  wire       clk,
    input  wire       rst,
    input  wire       init,
    input  wire       valid,
    input  wire [7:0] data,
    output reg  [7:0] crc
);
    reg [7:0] next;
    integer k;

    // Eight bit-serial steps of the CRC, unrolled into combinational logic.
    always @* begin
        next = crc ^ data;
        for (k = 0; k < 8; k = k + 1)
            next = next[7] ? ({next[6:0], 1'b0} ^ 8'h07) : {next[6:0], 1'b0};
    end

    always @(posedge clk) begin
        if (rst || init)
            crc <= 8'h00;
        else if (valid)
            crc <= next;
    end
endmodule
